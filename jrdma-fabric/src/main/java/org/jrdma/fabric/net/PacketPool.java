package org.jrdma.fabric.net;

import java.util.ArrayDeque;

/** Recycles {@link Packet}s: the simulator thread only. */
public final class PacketPool {
    private final ArrayDeque<Packet> free = new ArrayDeque<>(1024);
    private long created;

    /** A cleared packet. */
    public Packet get() {
        Packet p = free.pollFirst();
        if (p == null) {
            created++;
            return new Packet();
        }
        return p;
    }

    /** Returns a packet no one refers to any longer. */
    public void release(Packet p) {
        p.clear();
        free.addFirst(p);
    }

    /** Packets ever created (the peak in flight). */
    public long created() {
        return created;
    }
}
