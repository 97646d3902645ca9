package org.jrdma.fabric.net;

/**
 * 802.1Qbb pause time: one quantum is 512 bit times (IEEE 802.3 Annex 31B), so a pause of
 * {@code q} quanta lasts {@code q × 512 / rate}; the largest, 65 535 quanta, is 1.342 ms at
 * 25 Gbit/s, 0.839 ms at 40 Gbit/s and 0.336 ms at 100 Gbit/s (F13).
 */
public final class PfcQuanta {
    /** Bit times per quantum. */
    public static final int BIT_TIMES = 512;
    /** The largest pause a frame can carry. */
    public static final int MAX = 65535;

    private PfcQuanta() {
    }

    /** The pause time of {@code quanta} (0–65535) at {@code rateBps}, in ps (rounded up). */
    public static long durationPs(int quanta, long rateBps) {
        if (quanta < 0 || quanta > MAX || rateBps <= 0) {
            throw new IllegalArgumentException("quanta " + quanta + " at " + rateBps + " bit/s");
        }
        double bits = (double) quanta * BIT_TIMES; // below 2^25: exact; the quotient rounds up to a ps
        return (long) Math.ceil(bits * 1e12 / rateBps);
    }
}
