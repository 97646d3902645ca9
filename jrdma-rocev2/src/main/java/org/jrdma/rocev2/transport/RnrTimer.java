package org.jrdma.rocev2.transport;

/**
 * The RNR NAK timer field encoding (IBTA Vol 1 §9.7.5.2.8, table 45): a 5-bit code in the AETH of
 * an RNR NAK and in {@code min_rnr_timer}, standing for a wait from 0.01 ms (code 1) to 491.52 ms
 * (code 31); code 0 means 655.36 ms.
 */
public final class RnrTimer {
    private static final long[] MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840, 5_120,
        7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520
    };

    private RnrTimer() {
    }

    /** The wait of a timer code 0..31, µs. */
    public static long micros(int code) {
        return MICROS[code & 0x1F];
    }

    /** The wait of a timer code 0..31, ns. */
    public static long nanos(int code) {
        return MICROS[code & 0x1F] * 1000L;
    }
}
