package org.jrdma.verbs;

/**
 * Path MTU, {@code enum ibv_mtu} (IBTA Vol 1 §9.6.1.1.1: the payload of one packet, 256 to 4096 bytes).
 * The libibverbs value is 1 for 256 ... 5 for 4096.
 */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** The libibverbs enum value, 1..5. */
    public int value() {
        return value;
    }

    /** The payload bytes per packet: 256..4096. */
    public int bytes() {
        return bytes;
    }

    /** The MTU for a libibverbs value 1..5. @throws VerbsException EINVAL for any other value */
    public static Mtu ofValue(int value) {
        for (Mtu m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        throw new VerbsException(Errno.EINVAL, "no path MTU with enum value " + value + " (1..5)");
    }

    /** The MTU of exactly {@code bytes} (256, 512, 1024, 2048 or 4096). @throws VerbsException EINVAL otherwise */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new VerbsException(Errno.EINVAL, "no path MTU of " + bytes + " bytes (256, 512, 1024, 2048, 4096)");
    }

    /** The largest MTU not above {@code bytes}, at least 256. */
    public static Mtu largestNotAbove(int bytes) {
        Mtu best = MTU_256;
        for (Mtu m : values()) {
            if (m.bytes <= bytes) {
                best = m;
            }
        }
        return best;
    }
}
