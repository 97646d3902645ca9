package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * The packets a requester lays back to back before they leave together (issue 14): a train in the
 * shape {@link PacketPort#sendTrain} takes, packets of one size and a last one of at most that size,
 * up to {@link PacketPort#MAX_TRAIN} of them. The requester asks for room ({@link #reserve}), writes
 * a packet there (headers, payload, pad; the ICRC slot left free) and {@link #commit}s it; when the
 * next packet does not fit the train's shape (larger than its segments, or after a shorter last
 * one, or the train is full) {@link #reserve} says so and the QP sends the train first
 * ({@link RxeQp#flushTrain}), which also computes every packet's ICRC, once the IPv4
 * Identifications they will carry are known.
 *
 * <p>One train per sending thread ({@link #forThread()}: posting threads, the I/O thread, polling
 * threads); a requester uses it only inside one {@code run} under its QP's lock and leaves it empty,
 * so a train never holds the packets of two QPs. A posting thread may leave small packets in it
 * for its next post to the same QP (coalescing, {@link #COALESCE}; {@link #owner} is then that QP,
 * and that QP's lock guards the train until it leaves). Allocates nothing after the thread's first
 * trains ({@link PacketPort#MAX_TRAIN} × {@link RxeQp#MAX_PACKET} bytes, 270 KB, and a spare).
 */
final class PacketTrain {
    /**
     * Whether packets travel in trains ({@code -Djrdma.trains=false}: each packet is sent alone as it
     * is written, to measure against).
     */
    static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("jrdma.trains", "true"));
    /**
     * Whether a posting thread may hold a train of small packets across posts (issue 14; off by
     * default until its gain is measured on a quiet machine, {@code -Djrdma.coalesce=true} turns it on;
     * off, every post's packets leave when the post returns; jrdma-rocev2's unit tests run with it on); see
     * {@link Requester#run(boolean)} for when it does and what sends the train.
     */
    static final boolean COALESCE = ENABLED && Boolean.parseBoolean(System.getProperty("jrdma.coalesce", "false"));
    private static final ThreadLocal<PacketTrain> TRAINS = ThreadLocal.withInitial(PacketTrain::new);
    /** A second train per thread, for a run while the first holds another QP's deferred packets. */
    private static final ThreadLocal<PacketTrain> SPARES = ThreadLocal.withInitial(PacketTrain::new);

    private final PacketBuffer buf = PacketBuffer.allocate(PacketPort.MAX_TRAIN * RxeQp.MAX_PACKET);
    /** Bytes of each packet but the last (ICRC included), 0 while empty. */
    private int segmentSize;
    private int count;
    private int lastLength;
    /**
     * The QP whose packets this train holds between posts (deferred, {@link RxeQp#deferTrain}), or
     * null. Written under that QP's lock (set when deferred, cleared last when the train leaves);
     * read without it by the owning thread to choose a train ({@link #forRun}).
     */
    volatile RxeQp owner;

    private PacketTrain() {
    }

    /** The calling thread's train (empty between requester runs, unless deferred for a QP: {@link #owner}). */
    static PacketTrain forThread() {
        return TRAINS.get();
    }

    /**
     * The train a requester run of {@code qp} lays its packets in: the calling thread's, unless that
     * holds another QP's deferred packets (then a spare, which is never deferred).
     */
    static PacketTrain forRun(RxeQp qp) {
        PacketTrain t = TRAINS.get();
        RxeQp o = t.owner;
        return o == null || o == qp ? t : SPARES.get();
    }

    /**
     * Sends the calling thread's deferred train, if it holds one (takes its QP's lock; the caller
     * holds no QP lock): a thread that polls an empty CQ or blocks for an event posts nothing more
     * for now.
     */
    static void flushDeferred() {
        PacketTrain t = TRAINS.get();
        RxeQp o = t.owner;
        if (o != null) {
            o.flushDeferred(t);
        }
    }

    /** The buffer the packets lie in: packet {@code i} at {@code i * segmentSize()}. */
    PacketBuffer buffer() {
        return buf;
    }

    /**
     * Where a packet of {@code length} bytes (ICRC included) goes, or -1 when it does not fit this
     * train: send the train ({@link RxeQp#flushTrain}) and ask again (an empty train takes any
     * packet up to {@link RxeQp#MAX_PACKET} bytes).
     */
    int reserve(int length) {
        if (count == 0) {
            return 0;
        }
        if (!ENABLED || count == PacketPort.MAX_TRAIN || lastLength < segmentSize || length > segmentSize) {
            return -1;
        }
        return count * segmentSize;
    }

    /** The packet of {@code length} bytes at {@link #reserve}'s offset is written: it joins the train. */
    void commit(int length) {
        if (count == 0) {
            segmentSize = length;
        }
        lastLength = length;
        count++;
    }

    /** Whether another packet of the train's segment size would still join it (not full, no shorter last packet). */
    boolean hasRoom() {
        return count < PacketPort.MAX_TRAIN && lastLength == segmentSize;
    }

    /** Packets in the train. */
    int count() {
        return count;
    }

    /** Bytes of every packet but the last. */
    int segmentSize() {
        return segmentSize;
    }

    /** Bytes of the last packet (at most {@link #segmentSize()}). */
    int lastLength() {
        return lastLength;
    }

    /** Bytes of packet {@code i}. */
    int length(int i) {
        return i == count - 1 ? lastLength : segmentSize;
    }

    /** The train left (or was dropped): empty again. */
    void clear() {
        count = 0;
        segmentSize = 0;
        lastLength = 0;
    }
}
