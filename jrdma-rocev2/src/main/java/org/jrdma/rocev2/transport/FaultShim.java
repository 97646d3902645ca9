package org.jrdma.rocev2.transport;

import java.util.SplittableRandom;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * A seeded fault injector between the transport and the network: it drops, duplicates, reorders
 * (holds a packet back and sends it after the next one) and corrupts (flips one bit) outgoing
 * packets, each with its own probability. For tests and loss benchmarks; deterministic for a seed
 * and a sequence of sends. Allocation-free.
 *
 * <p>Configured as {@code loss=0.01,dup=0.01,reorder=0.01,corrupt=0.01,ce=0.01,seed=42} (any subset;
 * rates are probabilities per packet in [0, 1]). {@code ce} acts on <b>received</b> packets: it sets
 * the ECN field of their IP traffic class to CE (3, RFC 3168), as a congested switch on the way
 * would, so that the device's notification point answers with CNPs (DCQCN); it needs a port that
 * sees the traffic class ({@link PacketPort#lastTrafficClass()} not -1), else it marks nothing.
 *
 * <p>Trains ({@link #sendTrain}) are taken apart: each packet of a train is lost, duplicated,
 * reordered or corrupted on its own, as if sent alone (with no fault configured a train goes to
 * the inner port as it is). Received packets pass untouched but for {@code ce}.
 *
 * <p>Threads: the send side is serialized on this shim (its random sequence and the held-back
 * packet); the receive side is the inner port's (its own random sequence for {@code ce}).
 */
public final class FaultShim extends ForwardingPacketPort {
    private final double loss, dup, reorder, corrupt;
    /** Probability that a received packet is marked ECN-CE. */
    private final double ce;
    private final SplittableRandom random;
    /** The receive side's random sequence (receiving thread only). */
    private final SplittableRandom rxRandom;
    private int lastTc = -1;
    private long marked;
    private final PacketBuffer held = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    /** One packet of a train, copied to offset 0 (allocated at the first train). */
    private PacketBuffer trainPacket;
    private final boolean faultless;
    private final SockAddr heldDst = new SockAddr();
    private int heldLen, heldSrcPort, heldId;
    private long dropped, duplicated, reordered, corrupted;

    /** Wraps {@code inner} with the given per-packet probabilities. */
    public FaultShim(PacketPort inner, double loss, double dup, double reorder, double corrupt, long seed) {
        this(inner, loss, dup, reorder, corrupt, 0, seed);
    }

    /** Wraps {@code inner} with the given per-packet probabilities; {@code ce} marks received packets CE. */
    public FaultShim(PacketPort inner, double loss, double dup, double reorder, double corrupt, double ce, long seed) {
        super(inner);
        this.ce = check(ce);
        this.rxRandom = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.loss = check(loss);
        this.dup = check(dup);
        this.reorder = check(reorder);
        this.corrupt = check(corrupt);
        this.random = new SplittableRandom(seed);
        this.faultless = loss == 0 && dup == 0 && reorder == 0 && corrupt == 0;
    }

    private static double check(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("fault rate " + p + " not in [0, 1]");
        }
        return p;
    }

    /**
     * Wraps {@code inner} as {@code spec} says ({@code loss=0.01,dup=0,reorder=0,corrupt=0,seed=1}).
     *
     * @throws IllegalArgumentException naming a bad key or value
     */
    public static FaultShim parse(PacketPort inner, String spec) {
        double l = 0, d = 0, r = 0, c = 0, m = 0;
        long seed = 1;
        for (String kv : spec.split(",")) {
            String e = kv.strip();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("fault spec entry '" + e + "' is not key=value");
            }
            String k = e.substring(0, eq).strip();
            String v = e.substring(eq + 1).strip();
            try {
                switch (k) {
                    case "loss" -> l = Double.parseDouble(v);
                    case "dup" -> d = Double.parseDouble(v);
                    case "reorder" -> r = Double.parseDouble(v);
                    case "corrupt" -> c = Double.parseDouble(v);
                    case "ce" -> m = Double.parseDouble(v);
                    case "seed" -> seed = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown fault '" + k + "' (loss, dup, reorder, corrupt, ce, seed)");
                }
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("bad value '" + v + "' for fault '" + k + "'");
            }
        }
        return new FaultShim(inner, l, d, r, c, m, seed);
    }

    @Override
    public int receiveBurst(PacketBurst burst) {
        int n = inner.receiveBurst(burst);
        if (ce > 0) {
            for (int i = 0; i < n; i++) {
                int tc = burst.trafficClass(i);
                if (tc >= 0 && burst.length(i) > 0 && rxRandom.nextDouble() < ce) {
                    burst.trafficClass(i, tc | 3);
                    marked++;
                }
            }
        }
        return n;
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        int n = inner.receive(buf, from);
        int tc = inner.lastTrafficClass();
        if (ce > 0 && n > 0 && tc >= 0 && rxRandom.nextDouble() < ce) {
            tc |= 3;
            marked++;
        }
        lastTc = tc;
        return n;
    }

    @Override
    public int lastTrafficClass() {
        return lastTc;
    }

    /** Received packets marked CE so far (receiving thread's count). */
    public long markedCe() {
        return marked;
    }

    @Override
    public synchronized boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        if (random.nextDouble() < loss) {
            dropped++;
            return true; // lost on the wire: the sender does not know
        }
        if (random.nextDouble() < corrupt && len > 0) {
            corrupted++;
            int bit = random.nextInt(len * 8);
            flip(buf, bit);
            boolean ok = forward(buf, len, dst, srcPort, ipv4Id);
            flip(buf, bit);
            return ok;
        }
        if (heldLen == 0 && random.nextDouble() < reorder) {
            reordered++;
            java.lang.foreign.MemorySegment.copy(buf.seg, 0, held.seg, 0, len);
            heldDst.copyFrom(dst);
            heldLen = len;
            heldSrcPort = srcPort;
            heldId = ipv4Id;
            return true;
        }
        boolean ok = forward(buf, len, dst, srcPort, ipv4Id);
        if (random.nextDouble() < dup) {
            duplicated++;
            forward(buf, len, dst, srcPort, ipv4Id);
        }
        return ok;
    }

    /** Sends each packet of the train through {@link #send}: faults strike packets one by one. */
    @Override
    public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                         int firstIpv4Id) {
        PacketPort.trainLength(segmentSize, count, lastLength, buf.capacity());
        if (faultless) {
            return inner.sendTrain(buf, segmentSize, count, lastLength, dst, srcPort, firstIpv4Id);
        }
        synchronized (this) {
            if (trainPacket == null || trainPacket.capacity() < segmentSize) {
                trainPacket = PacketBuffer.allocate(Math.max(segmentSize, RxeQp.MAX_PACKET));
            }
            int sent = 0;
            for (int i = 0; i < count; i++) {
                int len = i == count - 1 ? lastLength : segmentSize;
                java.lang.foreign.MemorySegment.copy(buf.seg, (long) i * segmentSize, trainPacket.seg, 0, len);
                if (send(trainPacket, len, dst, srcPort, firstIpv4Id == 0 ? 0 : (firstIpv4Id + i) & 0xFFFF)) {
                    sent++;
                }
            }
            return sent;
        }
    }

    private boolean forward(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        boolean ok = inner.send(buf, len, dst, srcPort, ipv4Id);
        if (heldLen != 0) {
            int h = heldLen;
            heldLen = 0;
            inner.send(held, h, heldDst, heldSrcPort, heldId);
        }
        return ok;
    }

    private static void flip(PacketBuffer buf, int bit) {
        int i = bit >>> 3;
        byte b = buf.seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i);
        buf.seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (b ^ (1 << (bit & 7))));
    }

    /** Sends a packet still held back for reordering (so nothing waits forever). */
    public synchronized void release() {
        if (heldLen != 0) {
            int h = heldLen;
            heldLen = 0;
            inner.send(held, h, heldDst, heldSrcPort, heldId);
        }
    }

    @Override
    public void awaitReadable(long timeoutNanos) {
        release();
        inner.awaitReadable(timeoutNanos);
    }

    public synchronized long dropped() {
        return dropped;
    }

    public synchronized long duplicated() {
        return duplicated;
    }

    public synchronized long reordered() {
        return reordered;
    }

    public synchronized long corrupted() {
        return corrupted;
    }

    @Override
    public synchronized String toString() {
        return "FaultShim[loss=" + loss + ", dup=" + dup + ", reorder=" + reorder + ", corrupt=" + corrupt + ", ce=" + ce
                + "; dropped="
                + dropped + ", duplicated=" + duplicated + ", reordered=" + reordered + ", corrupted=" + corrupted + "]";
    }
}
