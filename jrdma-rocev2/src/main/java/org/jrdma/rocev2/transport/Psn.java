package org.jrdma.rocev2.transport;

/**
 * 24-bit packet sequence number arithmetic (IBTA Vol 1 §9.7.1: PSNs wrap modulo 2^24 and are
 * compared within a window of half the space).
 */
public final class Psn {
    /** The PSN mask: 24 bits. */
    public static final int MASK = 0xFFFFFF;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24. */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** Signed distance {@code a - b} in (-2^23, 2^23]: negative when a is before b. */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** Compares two PSNs in serial-number order: negative, zero or positive. */
    public static int compare(int a, int b) {
        return diff(a, b);
    }
}
