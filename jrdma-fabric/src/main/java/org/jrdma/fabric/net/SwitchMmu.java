package org.jrdma.fabric.net;

import java.util.SplittableRandom;

/**
 * The shared-buffer MMU of one switch, as the HPCC simulator's {@code SwitchMmu}
 * ({@code alibaba-edu/High-Precision-Congestion-Control}, {@code switch-mmu.cc}; FABRIC-REFERENCE.md
 * §2): one buffer, accounted per (ingress port, queue) — a reserve per (port, queue), headroom per
 * port, and a shared pool whose dynamic PFC threshold is {@code free >> shift} with
 * {@code free = buffer − Σheadroom − Σreserve − shared_used}.
 * <ul>
 * <li>Admission: a packet is dropped only when its (port, queue) headroom is full and the shared
 *     use is over the threshold ("Drop: Headroom full").</li>
 * <li>XOFF when headroom is in use or the shared use reaches the threshold; XON when no headroom is
 *     in use and the shared use is 0 or {@code resume_offset} below the threshold.</li>
 * <li>ECN (RED at dequeue): on the egress bytes of the (port, queue) after the packet leaves;
 *     queue 0 (control) is never marked.</li>
 * </ul>
 * Queue 0 bypasses the accounting (control frames). Simulator thread only.
 */
public final class SwitchMmu {
    /** Queues per port. */
    public static final int QUEUES = 8;

    private final long bufferBytes;
    private final long reserve;
    private final long resumeOffset;
    private final long[] headroom;
    private final int[] shift;
    private final long totalHeadroom;
    private final long totalReserve;
    private final long[][] ingressBytes;
    private final long[][] hdrmUsed;
    private final long[][] egressBytes;
    private final boolean[][] pausing;
    private long sharedUsed;
    private long kmin;
    private long kmax;
    private double pmax;
    private boolean ecn;

    /**
     * @param bufferBytes       the switch's buffer
     * @param reserveBytes      the reserve per (port, queue)
     * @param resumeOffsetBytes the XON offset below the threshold
     * @param headroomBytes     per port: the headroom (HPCC: 3 × rate × delay / 8)
     * @param shift             per port: the threshold's shift (HPCC: 3 at NIC rate, one less per doubling)
     * @throws IllegalArgumentException if reserves and headroom leave no shared buffer
     */
    public SwitchMmu(long bufferBytes, long reserveBytes, long resumeOffsetBytes, long[] headroomBytes, int[] shift) {
        int ports = headroomBytes.length;
        this.bufferBytes = bufferBytes;
        this.reserve = reserveBytes;
        this.resumeOffset = resumeOffsetBytes;
        this.headroom = headroomBytes.clone();
        this.shift = shift.clone();
        long h = 0;
        for (long x : headroomBytes) {
            h += x;
        }
        this.totalHeadroom = h;
        // HPCC's ConfigNPort: one reserve per port in the free-space sum
        this.totalReserve = reserveBytes * ports;
        if (bufferBytes <= totalHeadroom + totalReserve) {
            throw new IllegalArgumentException("buffer " + bufferBytes + " B leaves no shared space after headroom "
                    + totalHeadroom + " B and reserve " + totalReserve + " B of " + ports + " ports");
        }
        ingressBytes = new long[ports][QUEUES];
        hdrmUsed = new long[ports][QUEUES];
        egressBytes = new long[ports][QUEUES];
        pausing = new boolean[ports][QUEUES];
    }

    /** Enables RED/ECN marking at dequeue. */
    public void ecn(long kminBytes, long kmaxBytes, double pmaxProbability) {
        this.ecn = true;
        this.kmin = kminBytes;
        this.kmax = kmaxBytes;
        this.pmax = pmaxProbability;
    }

    /** The dynamic PFC threshold of an ingress port's queues now, in bytes. */
    public long pfcThreshold(int port) {
        return (bufferBytes - totalHeadroom - totalReserve - sharedUsed) >> shift[port];
    }

    /** Shared bytes in use by (port, queue): its ingress bytes above the reserve. */
    public long sharedUsed(int port, int q) {
        long used = ingressBytes[port][q];
        return used > reserve ? used - reserve : 0;
    }

    /** Bytes in the switch's shared pool. */
    public long sharedUsed() {
        return sharedUsed;
    }

    /** Bytes waiting on egress (port, queue). */
    public long egressBytes(int port, int q) {
        return egressBytes[port][q];
    }

    /** Headroom bytes in use by (port, queue). */
    public long headroomUsed(int port, int q) {
        return hdrmUsed[port][q];
    }

    /** True if a packet of {@code size} may enter on (port, q). */
    public boolean admit(int port, int q, int size) {
        return !(size + hdrmUsed[port][q] > headroom[port] && size + sharedUsed(port, q) > pfcThreshold(port));
    }

    /** Accounts an admitted packet: ingress (port, q) and egress (outPort, q). */
    public void enqueue(int port, int q, int outPort, int size) {
        long next = ingressBytes[port][q] + size;
        if (next <= reserve) {
            ingressBytes[port][q] = next;
        } else if (next - reserve > pfcThreshold(port)) {
            hdrmUsed[port][q] += size;
        } else {
            ingressBytes[port][q] = next;
            sharedUsed += Math.min(size, next - reserve);
        }
        egressBytes[outPort][q] += size;
    }

    /** Accounts a packet leaving egress (outPort, q) that came in on (port, q). */
    public void dequeue(int port, int q, int outPort, int size) {
        long fromHeadroom = Math.min(hdrmUsed[port][q], size);
        long in = ingressBytes[port][q];
        long fromShared = Math.min(size - fromHeadroom, in > reserve ? in - reserve : 0);
        hdrmUsed[port][q] -= fromHeadroom;
        ingressBytes[port][q] = in - (size - fromHeadroom);
        sharedUsed -= fromShared;
        egressBytes[outPort][q] -= size;
    }

    /** If (port, q) is to send XOFF now: marks it pausing and returns true. */
    public boolean shouldPause(int port, int q) {
        if (!pausing[port][q] && (hdrmUsed[port][q] > 0 || sharedUsed(port, q) >= pfcThreshold(port))) {
            pausing[port][q] = true;
            return true;
        }
        return false;
    }

    /** If (port, q) is to send XON now: clears its pausing mark and returns true. */
    public boolean shouldResume(int port, int q) {
        if (!pausing[port][q]) {
            return false;
        }
        long used = sharedUsed(port, q);
        if (hdrmUsed[port][q] == 0 && (used == 0 || used + resumeOffset <= pfcThreshold(port))) {
            pausing[port][q] = false;
            return true;
        }
        return false;
    }

    /** True while (port, q) holds its upstream paused. */
    public boolean pausing(int port, int q) {
        return pausing[port][q];
    }

    /** RED: whether the packet leaving egress (outPort, q) is to be marked CE. */
    public boolean shouldMark(int outPort, int q, SplittableRandom random) {
        if (!ecn || q == 0) {
            return false;
        }
        long b = egressBytes[outPort][q];
        if (b > kmax) {
            return true;
        }
        if (b > kmin) {
            double p = pmax * (double) (b - kmin) / (kmax - kmin);
            return random.nextDouble() < p;
        }
        return false;
    }
}
