package org.jrdma.verbs;

/** Queue pair transport service types, {@code enum ibv_qp_type} (IBTA Vol 1 §9.8). */
public enum QpType {
    /** Reliable connected. */
    RC(2),
    /** Unreliable connected. */
    UC(3),
    /** Unreliable datagram. */
    UD(4);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The libibverbs value ({@code IBV_QPT_RC} = 2). */
    public int value() {
        return value;
    }
}
