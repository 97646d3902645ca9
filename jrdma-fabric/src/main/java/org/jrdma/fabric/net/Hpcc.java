package org.jrdma.fabric.net;

import org.jrdma.fabric.scenario.Scenario;

/**
 * HPCC's sender for one flow (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019,
 * Algorithm 1): every switch egress a data packet leaves appends in-network telemetry (INT: the
 * port's rate B, the time ts, its bytes sent txBytes and its queue qLen); the receiver's ACK carries
 * it back; on each ACK the sender estimates the normalised in-flight bytes of the most loaded hop,
 *
 * <pre>
 *   u'  = min(qLen, qLen_prev) / (B · T) + txRate / B,   txRate = Δ txBytes / Δ ts
 *   U   ← (1 − τ/T) · U + τ/T · max u',                 τ = min(Δ ts of that hop, T)
 * </pre>
 *
 * and sets its window: multiplicative {@code W = Wc / (U/η) + W_AI} when U ≥ η or after
 * {@code maxStage} additive steps, else additive {@code W = Wc + W_AI}; the reference window Wc
 * takes W once per RTT (on the first ACK beyond the last update's {@code snd_nxt}), the other ACKs
 * react on W alone ("fast react"). It sends at most W bytes beyond the oldest unacknowledged byte,
 * paced at R = W / T. T is the flow's base RTT (the standalone FCT's), W starts at B_nic · T,
 * W_AI = R_AI · T.
 *
 * <p>As the HPCC simulator ({@code rdma-hw.cc}): U starts at 1, the first ACK only records the
 * telemetry, the rate stays within [min rate, line rate]. Not modelled: INT's header bytes on the
 * wire (HPCC's project page: about 5 % overhead), PINT.
 */
final class Hpcc {
    /** The most switch hops a packet records (a fat-tree path has 5). */
    static final int MAX_HOPS = 8;

    private final double eta;
    private final int maxStage;
    private final double lineBps;
    private final double minBps;
    private final double baseRttPs;
    private final double wAiBytes;
    private double w;
    private double wc;
    private double u = 1;
    private int incStage;
    private long lastUpdateSeq;
    private double rateBps;
    private int hops = -1;
    private final long[] ts = new long[MAX_HOPS];
    private final long[] tx = new long[MAX_HOPS];
    private final long[] qlen = new long[MAX_HOPS];

    Hpcc(Scenario.HpccSpec s, long lineBps, long baseRttPs) {
        this.eta = s.eta();
        this.maxStage = s.maxStage();
        this.lineBps = lineBps;
        this.minBps = Math.min(s.minRateBps(), lineBps);
        this.baseRttPs = baseRttPs;
        this.wAiBytes = s.rateAiBps() * baseRttPs / 8e12;
        this.w = lineBps * baseRttPs / 8e12;
        this.wc = w;
        this.rateBps = lineBps;
    }

    /** The window W in bytes. */
    double windowBytes() {
        return w;
    }

    /** The pacing rate R = W / T in bit/s. */
    double rateBps() {
        return rateBps;
    }

    /** U as of the last ACK. */
    double utilization() {
        return u;
    }

    /** An ACK of everything below {@code ackSeq} came with {@code ack}'s telemetry; {@code sndNxt} is the sender's. */
    void onAck(Packet ack, long ackSeq, long sndNxt) {
        int n = ack.intHops;
        if (n == 0) { // an ACK without telemetry (a duplicate's): nothing to learn
            return;
        }
        if (n != hops) { // the first ACK (or a new path): record only
            record(ack);
            lastUpdateSeq = sndNxt;
            return;
        }
        boolean updateWc = ackSeq > lastUpdateSeq;
        double uMax = 0;
        double tau = 0;
        boolean any = false;
        for (int i = 0; i < n; i++) {
            long dt = ack.intTs[i] - ts[i];
            if (dt <= 0) {
                continue;
            }
            double b = ack.intBps[i];
            double txRate = (ack.intTx[i] - tx[i]) * 8e12 / dt;
            double up = Math.min(ack.intQlen[i], qlen[i]) * 8e12 / (b * baseRttPs) + txRate / b;
            if (!any || up > uMax) {
                uMax = up;
                tau = dt;
                any = true;
            }
        }
        if (any) {
            tau = Math.min(tau, baseRttPs);
            u = (1 - tau / baseRttPs) * u + tau / baseRttPs * uMax;
            double next;
            if (u >= eta || incStage >= maxStage) {
                next = wc / (u / eta) + wAiBytes;
                if (updateWc) {
                    incStage = 0;
                    wc = next;
                }
            } else {
                next = wc + wAiBytes;
                if (updateWc) {
                    incStage++;
                    wc = next;
                }
            }
            double r = Math.max(minBps, Math.min(lineBps, next * 8e12 / baseRttPs));
            rateBps = r;
            w = r * baseRttPs / 8e12;
            if (updateWc) {
                wc = Math.min(wc, w);
                lastUpdateSeq = sndNxt;
            }
        }
        record(ack);
    }

    private void record(Packet ack) {
        hops = ack.intHops;
        for (int i = 0; i < hops; i++) {
            ts[i] = ack.intTs[i];
            tx[i] = ack.intTx[i];
            qlen[i] = ack.intQlen[i];
        }
    }
}
