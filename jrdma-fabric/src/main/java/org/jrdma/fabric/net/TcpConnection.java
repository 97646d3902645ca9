package org.jrdma.fabric.net;

import org.jrdma.fabric.scenario.TcpSpec;

/**
 * One direction of a TCP connection in the model ({@link TcpSpec}): the sender's window, SACK
 * scoreboard, loss recovery and retransmission timer, and the receiver's reassembly and ACKs with
 * SACK blocks. Byte offsets are the flow's stream offsets ({@link Flow#size} is what the
 * application has queued). The {@link Nic} asks {@link #next} for a segment when its port is free
 * and hands ACKs and segments in; this class decides, the NIC moves packets.
 *
 * <p>Sender: slow start and congestion avoidance (RFC 5681), fast retransmit on three duplicate
 * ACKs or three segments' worth SACKed above the cumulative ACK, NewReno fast recovery to the
 * recovery point (RFC 6582) retransmitting the holes below the highest SACKed byte, RFC 6675's
 * pipe (outstanding − SACKed − holes not yet resent), RFC 6298's timer (srtt + 4 rttvar, floored
 * at the minimum RTO, doubled on each expiry, Karn's rule), and after a timeout cwnd = 1 segment
 * and a resend of every unSACKed byte. DCTCP (RFC 8257): α ← (1 − g)α + g·F once per window of
 * data, cwnd ← cwnd (1 − α/2) once per window with ECE. Simulator thread only.
 */
final class TcpConnection {
    private final TcpSpec spec;
    private final int mss;
    private final Flow flow;

    // sender
    long sndUna;
    long sndNxt;
    double cwnd;
    double ssthresh = Double.MAX_VALUE;
    private int dupAcks;
    private boolean inRecovery;
    private boolean afterTimeout;
    private long recover;
    private long rtxNext;
    private final Intervals sacked = new Intervals();
    private long srttPs = -1;
    private long rttvarPs;
    long rtoPs;
    private int backoff = 1;
    long rtoDeadlinePs = Long.MAX_VALUE;
    private long timedSeq = -1;
    private long timedAtPs;
    long retransmits;
    long fastRetransmits;
    long timeouts;
    // DCTCP
    double alpha = 1;
    private long windowEnd;
    private long ackedInWindow;
    private long eceInWindow;

    // receiver
    private final Intervals ooo = new Intervals();

    TcpConnection(TcpSpec spec, int mss, Flow flow) {
        this.spec = spec;
        this.mss = mss;
        this.flow = flow;
        this.cwnd = (double) spec.initCwndSegments() * mss;
        this.rtoPs = spec.initialRtoPs();
    }

    /** Bytes in flight by RFC 6675: outstanding, less SACKed, less holes deemed lost and not yet resent. */
    long pipe() {
        long out = sndNxt - sndUna - sacked.bytesIn(sndUna, sndNxt);
        if (inRecovery) {
            long limit = lossLimit();
            if (limit > rtxNext) {
                out -= (limit - rtxNext) - sacked.bytesIn(rtxNext, limit);
            }
        }
        return Math.max(0, out);
    }

    /** In recovery, bytes below this that are not SACKed are deemed lost. */
    private long lossLimit() {
        return afterTimeout ? recover : Math.min(recover, sacked.highest(sndUna));
    }

    /** True if a segment may go now. */
    boolean canSend() {
        if (pipe() + mss > cwnd && pipe() > 0) {
            return false;
        }
        return nextHole() >= 0 || sndNxt < flow.size;
    }

    /** The next lost byte to resend, or −1. */
    private long nextHole() {
        if (!inRecovery) {
            return -1;
        }
        long limit = lossLimit();
        long x = Math.max(rtxNext, sndUna);
        while (x < limit) {
            long e = sacked.endOfRangeAt(x);
            if (e == x) {
                return x;
            }
            x = e;
        }
        return -1;
    }

    /**
     * Fills in the next segment's offset and length ({@code p.psn}, {@code p.payload}) and returns
     * true, or returns false if the window or the data allow none.
     */
    boolean next(Packet p, long nowPs) {
        if (!canSend()) {
            return false;
        }
        long hole = nextHole();
        long s;
        long e;
        if (hole >= 0) {
            s = hole;
            e = Math.min(Math.min(s + mss, sacked.nextStartAfter(s)), lossLimit());
            rtxNext = e;
            retransmits++;
            if (timedSeq >= s && timedSeq < e) {
                timedSeq = -1; // Karn: never time a retransmitted segment
            }
        } else {
            s = sndNxt;
            e = Math.min(s + mss, flow.size);
            sndNxt = e;
            if (timedSeq < 0) {
                timedSeq = s;
                timedAtPs = nowPs;
            }
        }
        p.psn = s;
        p.payload = (int) (e - s);
        p.ect = spec.dctcp();
        if (rtoDeadlinePs == Long.MAX_VALUE) {
            rtoDeadlinePs = nowPs + rtoPs * backoff;
        }
        return true;
    }

    /** The sender takes an ACK: cumulative {@code ack}, SACK blocks and the ECE flag in {@code p}. */
    void onAck(Packet p, long nowPs) {
        long ack = p.psn;
        for (int i = 0; i < p.sackCount; i++) {
            if (p.sack[2 * i + 1] > ack) {
                sacked.add(Math.max(ack, p.sack[2 * i]), p.sack[2 * i + 1]);
            }
        }
        if (spec.dctcp()) {
            dctcp(p, ack);
        }
        if (ack > sndUna) {
            long acked = ack - sndUna;
            sndUna = ack;
            if (sndNxt < sndUna) {
                sndNxt = sndUna;
            }
            sacked.removeBelow(ack);
            dupAcks = 0;
            if (timedSeq >= 0 && ack > timedSeq) {
                rttSample(nowPs - timedAtPs);
                timedSeq = -1;
            }
            backoff = 1;
            rtoDeadlinePs = sndUna < sndNxt ? nowPs + rtoPs : Long.MAX_VALUE;
            if (inRecovery) {
                if (ack >= recover) {
                    inRecovery = false;
                    if (!afterTimeout) {
                        cwnd = ssthresh; // NewReno: deflate to ssthresh
                    }
                    afterTimeout = false;
                } else if (afterTimeout) {
                    grow(acked);
                }
            } else {
                grow(acked);
            }
        } else if (ack == sndUna && sndNxt > sndUna) {
            dupAcks++;
        }
        if (!inRecovery && sndNxt > sndUna && (dupAcks >= 3 || sacked.bytesIn(sndUna, sndNxt) >= 3L * mss)) {
            inRecovery = true;
            afterTimeout = false;
            recover = sndNxt;
            rtxNext = sndUna;
            ssthresh = Math.max((sndNxt - sndUna) / 2.0, 2.0 * mss);
            cwnd = ssthresh;
            fastRetransmits++;
        }
    }

    private void grow(long acked) {
        if (cwnd < ssthresh) {
            cwnd += Math.min(acked, mss);
        } else {
            cwnd += (double) mss * Math.min(acked, mss) / cwnd;
        }
    }

    private void dctcp(Packet p, long ack) {
        long acked = Math.max(0, ack - sndUna);
        ackedInWindow += acked;
        if (p.ece) {
            eceInWindow += Math.max(acked, 1);
        }
        if (ack >= windowEnd && ackedInWindow > 0) {
            double f = Math.min(1.0, (double) eceInWindow / ackedInWindow);
            alpha = (1 - spec.dctcpG()) * alpha + spec.dctcpG() * f;
            if (eceInWindow > 0 && !inRecovery) {
                cwnd = Math.max(mss, cwnd * (1 - alpha / 2));
                ssthresh = cwnd;
            }
            ackedInWindow = 0;
            eceInWindow = 0;
            windowEnd = Math.max(sndNxt, ack + 1);
        }
    }

    private void rttSample(long r) {
        if (srttPs < 0) {
            srttPs = r;
            rttvarPs = r / 2;
        } else {
            rttvarPs = (3 * rttvarPs + Math.abs(srttPs - r)) / 4;
            srttPs = (7 * srttPs + r) / 8;
        }
        rtoPs = Math.max(spec.minRtoPs(), srttPs + 4 * rttvarPs);
    }

    /** The retransmission timer expired (the caller checked the deadline): RFC 6298 5.5–5.7. */
    void onTimeout(long nowPs) {
        timeouts++;
        ssthresh = Math.max((sndNxt - sndUna) / 2.0, 2.0 * mss);
        cwnd = mss;
        inRecovery = true;
        afterTimeout = true;
        recover = sndNxt;
        rtxNext = sndUna;
        dupAcks = 0;
        timedSeq = -1;
        backoff = Math.min(backoff * 2, 64);
        rtoDeadlinePs = nowPs + rtoPs * backoff;
    }

    /** Smoothed RTT in ps (−1 before the first sample). */
    long srttPs() {
        return srttPs;
    }

    // ---- receiver ----

    /**
     * The receiver takes segment {@code [psn, psn + payload)}; returns the in-order bytes it adds
     * (0 for out-of-order or duplicate data). The ACK to send is then {@link #fillAck}.
     */
    long onData(long psn, int payload) {
        long s = psn;
        long e = psn + payload;
        long before = flow.expected;
        if (e <= flow.expected) {
            return 0;
        }
        if (s <= flow.expected) {
            flow.expected = e;
            while (!ooo.isEmpty() && ooo.start(0) <= flow.expected) {
                flow.expected = Math.max(flow.expected, ooo.end(0));
                ooo.removeBelow(flow.expected);
            }
            ooo.removeBelow(flow.expected);
        } else {
            ooo.add(s, e);
        }
        return flow.expected - before;
    }

    /** Fills an ACK: the cumulative ACK and up to three SACK blocks (the one holding {@code lastPsn} first). */
    void fillAck(Packet ack, long lastPsn) {
        ack.psn = flow.expected;
        ack.sackCount = 0;
        int first = -1;
        for (int i = 0; i < ooo.size(); i++) {
            if (ooo.start(i) <= lastPsn && lastPsn < ooo.end(i)) {
                first = i;
            }
        }
        if (first >= 0) {
            ack.sack[0] = ooo.start(first);
            ack.sack[1] = ooo.end(first);
            ack.sackCount = 1;
        }
        for (int i = 0; i < ooo.size() && ack.sackCount < 3; i++) {
            if (i != first) {
                ack.sack[2 * ack.sackCount] = ooo.start(i);
                ack.sack[2 * ack.sackCount + 1] = ooo.end(i);
                ack.sackCount++;
            }
        }
    }
}
