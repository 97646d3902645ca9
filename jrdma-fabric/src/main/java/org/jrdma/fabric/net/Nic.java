package org.jrdma.fabric.net;

import java.util.ArrayDeque;
import java.util.ArrayList;
import org.jrdma.fabric.sim.EventHandler;
import org.jrdma.fabric.sim.Simulator;

/**
 * A host's RoCE NIC with one port. Sending: control frames (ACK, NAK, CNP) first, then the active
 * QPs round-robin, each held to its DCQCN rate by a pacing time (the rate limiter; HPCC's
 * {@code m_nextAvail}) and skipped while PFC pauses its priority. Loss recovery is go-back-N: a NAK
 * or the retransmission timeout sends again from the byte it names / the oldest unacked byte.
 * Receiving: in-order data is ACKed every {@code ackInterval} packets (and at the end); a gap
 * draws one NAK per gap (again after {@code nackInterval}); a CE mark goes to the flow's DCQCN
 * notification point, which sends at most one CNP per interval. Hosts send no PFC (as HPCC) unless
 * the scenario makes the NIC stuck: then it discards what it receives and sends XOFF on priorities
 * 1–7 for ever, refreshed at half the longest pause (the NIC pause storm of Guo et al. 2016).
 *
 * <p>DCQCN runs on the virtual clock: it is given {@code now / 1000} ns.
 */
final class Nic implements Node, EventHandler {
    private static final int WAKE = 0;
    private static final int START = 1;
    private static final int RTO = 2;
    private static final int STUCK = 3;
    private static final int CNP_ACT = 4;
    private static final int STOP = 5;
    private static final int TCP_RTO = 6;
    /** ACK/NAK on the wire: headers + AETH (4 B). */
    static final int ACK_EXTRA = 4;
    /** CNP on the wire: headers + 16 reserved bytes (IBTA Annex A17). */
    static final int CNP_EXTRA = 16;

    private final Network net;
    private final int id;
    final String name;
    Port port;
    private final ArrayDeque<Packet> control = new ArrayDeque<>();
    private final ArrayList<Flow> active = new ArrayList<>();
    private int rr;
    /** The next IPv4 identification (16 bits, one per data packet sent). */
    private int ipId;
    private long wakeAt = Long.MAX_VALUE;
    /** The receive pipeline stopped: discard what arrives, keep pausing the switch. */
    private boolean stuck;
    long stuckDiscards;
    /** Packets this NIC sent and received, by kind (the CPU cost model's inputs). */
    long txData;
    long rxData;
    long txControl;
    long rxControl;

    Nic(Network net, int id, String name) {
        this.net = net;
        this.id = id;
        this.name = name;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public int nodeType() {
        return 0;
    }

    void schedule(Flow f) {
        net.sim.at(f.spec.startPs(), this, START, f);
        if (f.spec.stopPs() != Long.MAX_VALUE) {
            net.sim.at(f.spec.stopPs(), this, STOP, f);
        }
    }

    /** The receive pipeline stops at {@code atPs} (a host-originated pause storm). */
    void stuckAt(long atPs) {
        net.sim.at(atPs, this, STUCK, null);
    }

    @Override
    public void onEvent(int kind, Object payload) {
        Simulator sim = net.sim;
        switch (kind) {
            case WAKE -> {
                if (sim.now() == wakeAt) {
                    wakeAt = Long.MAX_VALUE;
                    port.kick();
                }
            }
            case START -> {
                Flow f = (Flow) payload;
                f.started = true;
                f.lastProgressPs = sim.now();
                active.add(f);
                port.kick();
            }
            case STUCK -> {
                // XOFF on every lossless priority, refreshed at half the pause time, for ever
                stuck = true;
                for (int prio = 1; prio < SwitchMmu.QUEUES; prio++) {
                    port.sendPfc(prio, PfcQuanta.MAX);
                }
                net.pauses += SwitchMmu.QUEUES - 1;
                sim.after(Math.max(1, PfcQuanta.durationPs(PfcQuanta.MAX, port.rateBps) / 2), this, STUCK, null);
            }
            case STOP -> {
                Flow f = (Flow) payload;
                if (!f.done) { // the application stops: nothing more is sent, nothing is resent
                    f.done = true;
                    f.stopped = true;
                    active.remove(f);
                    rr = 0;
                    net.stopped++;
                }
            }
            case CNP_ACT -> {
                Flow f = (Flow) payload;
                f.rp.onCnp(sim.now() / 1000);
                net.cnpHandled++;
            }
            case TCP_RTO -> tcpTimer((Flow) payload);
            default -> timeout((Flow) payload);
        }
    }

    private void tcpTimer(Flow f) {
        TcpConnection t = f.tcp;
        long now = net.sim.now();
        f.rtoArmed = false;
        if (f.done || t.rtoDeadlinePs == Long.MAX_VALUE) {
            return;
        }
        if (now >= t.rtoDeadlinePs) {
            t.onTimeout(now);
            f.timeouts++;
            net.timeouts++;
            port.kick();
        }
        f.rtoArmed = true;
        net.sim.at(t.rtoDeadlinePs, this, TCP_RTO, f);
    }

    private void timeout(Flow f) {
        f.rtoArmed = false;
        if (f.done) {
            return;
        }
        long now = net.sim.now();
        long rto = rto(f);
        if (f.sndNxt > f.sndUna && now - f.lastProgressPs >= rto) {
            f.timeouts++;
            net.timeouts++;
            if (f.sacked != null) { // IRN: resend what is not selectively acked, from the oldest unacked byte
                f.inRecovery = true;
                f.recoveryPoint = f.sndNxt;
                f.rtxNext = f.sndUna;
                f.rtxLimit = f.sndNxt;
            } else {
                f.sndNxt = restartAt(f.sndUna);
            }
            f.lastProgressPs = now;
            port.kick();
        }
        if (f.sndNxt > f.sndUna) {
            f.rtoArmed = true;
            net.sim.at(f.lastProgressPs + rto(f), this, RTO, f);
        }
    }

    /** The retransmission timeout: IRN's low one with at most N packets outstanding, its high one else; or the NIC's. */
    private long rto(Flow f) {
        if (f.sacked == null) {
            return net.rtoPs;
        }
        return f.sndNxt - f.sndUna <= (long) net.irn.n() * net.mtu ? net.irn.rtoLowPs() : net.irn.rtoHighPs();
    }

    /** IRN: the first byte of the next hole to resend (skipping selectively acked ranges), or -1. */
    private static long nextHole(Flow f) {
        if (!f.inRecovery) {
            return -1;
        }
        long x = Math.max(f.rtxNext, f.sndUna);
        while (f.sacked.contains(x)) {
            x = f.sacked.endOfRangeAt(x);
        }
        f.rtxNext = x;
        return x < Math.min(f.rtxLimit, f.sndNxt) ? x : -1;
    }

    @Override
    public Packet next(Port out) {
        Packet c = control.peekFirst();
        if (c != null && out.mayStart(0, c.wireBytes)) {
            return control.pollFirst();
        }
        long now = net.sim.now();
        int n = active.size();
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            int k = (rr + i) % n;
            Flow f = active.get(k);
            if (f.tcp != null) {
                if (!out.mayStart(f.priority, net.mtu + net.header) || !f.tcp.canSend()) {
                    continue;
                }
                rr = k + 1;
                return tcpData(f, now);
            }
            long hole = f.sacked != null ? nextHole(f) : -1;
            boolean fresh = f.sndNxt < f.size && (f.sacked == null || !net.irn.bdpFc() || f.sndNxt - f.sndUna < f.bdpBytes);
            if (hole < 0 && !fresh || !out.mayStart(f.priority, net.mtu + net.header)) {
                continue;
            }
            if (f.hpcc != null && f.sndNxt - f.sndUna >= f.hpcc.windowBytes()) {
                continue; // HPCC's window is full: an ACK kicks the port
            }
            if (f.nextAvailPs > now) {
                earliest = Math.min(earliest, f.nextAvailPs);
                continue;
            }
            rr = k + 1;
            if (hole >= 0) { // IRN: a hole first, new data after
                long end = Math.min(Math.min(f.sacked.nextStartAfter(hole), f.rtxLimit), hole + net.mtu);
                f.rtxNext = end;
                f.retransmitted++;
                return data(f, now, hole, (int) Math.min(end - hole, f.size - hole));
            }
            return data(f, now, f.sndNxt, (int) Math.min(net.mtu, f.size - f.sndNxt));
        }
        if (earliest != Long.MAX_VALUE && earliest < wakeAt) {
            wakeAt = earliest;
            net.sim.at(earliest, this, WAKE, null);
        }
        return null;
    }

    /** A data packet of {@code f} carrying [{@code psn}, {@code psn + payload}); new data when psn is sndNxt. */
    private Packet data(Flow f, long now, long psn, int payload) {
        Packet p = net.pool.get();
        txData++;
        p.ipId = ipId;
        ipId = (ipId + 1) & 0xFFFF;
        p.type = Packet.DATA;
        p.flow = f.index;
        p.src = id;
        p.dst = f.dst.id();
        p.psn = psn;
        p.payload = payload;
        p.wireBytes = p.payload + net.header;
        p.priority = f.priority;
        p.ect = net.ecn;
        if (psn == f.sndNxt) {
            f.sndNxt += p.payload;
        }
        f.sentPackets++;
        net.dataPackets++;
        if (f.rp != null) {
            f.rp.onSent(now / 1000, p.wireBytes);
            f.nextAvailPs = now + f.rp.transmitTimePs(p.wireBytes);
        } else if (f.hpcc != null) {
            f.nextAvailPs = now + Math.max(1, (long) Math.ceil(p.wireBytes * 8e12 / f.hpcc.rateBps()));
        }
        if (!f.rtoArmed) {
            f.rtoArmed = true;
            net.sim.at(now + rto(f), this, RTO, f);
        }
        return p;
    }

    private Packet tcpData(Flow f, long now) {
        Packet p = net.pool.get();
        f.tcp.next(p, now);
        p.type = Packet.DATA;
        p.flow = f.index;
        p.src = id;
        p.dst = f.dst.id();
        p.wireBytes = p.payload + net.header;
        p.priority = f.priority;
        f.sentPackets++;
        net.dataPackets++;
        txData++;
        if (!f.rtoArmed && f.tcp.rtoDeadlinePs != Long.MAX_VALUE) {
            f.rtoArmed = true;
            net.sim.at(f.tcp.rtoDeadlinePs, this, TCP_RTO, f);
        }
        return p;
    }

    private void control(int type, Flow f, long psn, int to) {
        control(type, f, psn, to, null);
    }


    /** A control frame; an ACK of HPCC's echoes {@code intFrom}'s telemetry. */
    private Packet control(int type, Flow f, long psn, int to, Packet intFrom) {
        Packet p = net.pool.get();
        if (intFrom != null) {
            p.copyInt(intFrom);
        }
        p.type = type;
        p.flow = f.index;
        p.src = id;
        p.dst = to;
        p.psn = psn;
        p.priority = 0;
        p.wireBytes = net.header + (type == Packet.CNP ? CNP_EXTRA : ACK_EXTRA);
        control.addLast(p);
        txControl++;
        port.kick(); // the frame is read on arrival, later: the caller may still fill in fields
        return p;
    }

    /** A TCP ACK for {@code f}'s receiver: cumulative ACK, SACK blocks, ECE. */
    private void tcpAck(Flow f, long lastPsn, boolean ece, int to) {
        Packet p = net.pool.get();
        p.type = Packet.ACK;
        p.flow = f.index;
        p.src = id;
        p.dst = to;
        p.priority = 0;
        f.tcp.fillAck(p, lastPsn);
        p.ece = ece;
        p.wireBytes = net.header + (p.sackCount > 0 ? 2 + 8 * p.sackCount + 2 : 0); // SACK option + NOP pad
        control.addLast(p);
        txControl++;
        port.kick();
    }

    @Override
    public void receive(Port in, Packet p) {
        if (stuck) {
            stuckDiscards++;
            net.stuckDiscards++;
            net.pool.release(p);
            return;
        }
        Flow f = net.flows[p.flow];
        long now = net.sim.now();
        if (p.type == Packet.DATA) {
            rxData++;
        } else {
            rxControl++;
        }
        if (f.tcp != null) {
            receiveTcp(f, p, now);
            net.pool.release(p);
            return;
        }
        switch (p.type) {
            case Packet.DATA -> receiveData(f, p, now);
            case Packet.ACK -> {
                if (f.hpcc != null && !f.done) {
                    f.hpcc.onAck(p, p.psn, f.sndNxt);
                }
                if (p.psn > f.sndUna) {
                    f.sndUna = p.psn;
                    f.lastProgressPs = now;
                    if (f.sacked != null) {
                        acked(f);
                    }
                    if (f.sndNxt < f.sndUna && net.goBack0MessageBytes == 0) {
                        f.sndNxt = f.sndUna;
                    }
                    if (f.sndUna >= f.size && !f.done && !f.persistent) {
                        finish(f, now);
                    }
                }
                if ((f.hpcc != null || f.sacked != null) && !f.done) {
                    port.kick(); // HPCC's window or BDP flow control may have opened
                }
            }
            case Packet.NACK -> {
                if (f.sacked != null) {
                    selectiveNack(f, p, now);
                } else if (p.psn >= f.sndUna && !f.done) {
                    f.sndUna = p.psn;
                    f.sndNxt = restartAt(p.psn);
                    f.lastProgressPs = now;
                    port.kick();
                }
            }
            case Packet.CNP -> {
                if (f.rp != null && net.ccDelayPs > 0) {
                    net.sim.after(net.ccDelayPs, this, CNP_ACT, f); // the NIC's CC reaction delay
                } else if (f.rp != null) {
                    f.rp.onCnp(now / 1000);
                    net.cnpHandled++;
                }
            }
            default -> throw new IllegalStateException("packet type " + p.type + " at a NIC");
        }
        net.pool.release(p);
    }

    private void receiveTcp(Flow f, Packet p, long now) {
        if (p.type == Packet.DATA) {
            long added = f.tcp.onData(p.psn, p.payload);
            if (added > 0) {
                f.delivered += added;
                f.deliveredTo(now);
            }
            tcpAck(f, p.psn, p.ce, p.src);
        } else if (p.type == Packet.ACK && !f.done) {
            f.tcp.onAck(p, now);
            f.sndUna = f.tcp.sndUna;
            f.sndNxt = f.tcp.sndNxt;
            if (f.sndUna >= f.size && !f.persistent) {
                finish(f, now);
            } else {
                port.kick();
            }
        }
    }

    private void receiveData(Flow f, Packet p, long now) {
        if (p.ce && f.np != null && f.np.onCongestionExperienced(now / 1000)) {
            net.cnpSent++;
            control(Packet.CNP, f, 0, p.src);
        }
        if (f.rcvOoo != null && p.psn != f.expected) { // IRN's receiver: keep it, NAK with the range (a SACK)
            if (p.psn > f.expected) {
                f.rcvOoo.add(p.psn, p.psn + p.payload);
                net.nacks++;
                Packet n = control(Packet.NACK, f, f.expected, p.src, null);
                n.sack[0] = p.psn;
                n.sack[1] = p.psn + p.payload;
                n.sackCount = 1;
            } else {
                control(Packet.ACK, f, f.expected, p.src);
            }
            return;
        }
        if (f.rcvOoo != null) { // in order: take what was kept beyond it too
            long before = f.expected;
            f.expected += p.payload;
            f.expected = f.rcvOoo.endOfRangeAt(f.expected);
            f.rcvOoo.removeBelow(f.expected);
            f.delivered += f.expected - before;
            f.deliveredTo(now);
            if (++f.sinceAck >= net.ackInterval || f.expected >= f.size || before + p.payload != f.expected) {
                f.sinceAck = 0;
                control(Packet.ACK, f, f.expected, p.src, net.hpcc ? p : null);
            }
            return;
        }
        if (p.psn == f.expected) {
            f.expected += p.payload;
            f.delivered += p.payload;
            f.nackFor = -1;
            f.deliveredTo(now);
            if (++f.sinceAck >= net.ackInterval || f.expected >= f.size) {
                f.sinceAck = 0;
                control(Packet.ACK, f, f.expected, p.src, net.hpcc ? p : null);
            }
        } else if (p.psn > f.expected) {
            if (f.nackFor != f.expected || now - f.lastNackPs >= net.nackIntervalPs) {
                f.nackFor = f.expected;
                f.lastNackPs = now;
                net.nacks++;
                control(Packet.NACK, f, f.expected, p.src);
            }
        } else {
            control(Packet.ACK, f, f.expected, p.src); // a duplicate after go-back-N: say where we are
        }
    }

    /** IRN's sender: the cumulative ACK moved; ranges below it are no longer needed, recovery may end. */
    private static void acked(Flow f) {
        f.sacked.removeBelow(f.sndUna);
        if (f.inRecovery && f.sndUna >= f.recoveryPoint) {
            f.inRecovery = false;
        }
    }

    /** IRN's sender: a NAK with the cumulative ACK and the range that arrived out of order. */
    private void selectiveNack(Flow f, Packet p, long now) {
        if (f.done) {
            return;
        }
        if (p.psn > f.sndUna) {
            f.sndUna = p.psn;
            f.lastProgressPs = now;
        }
        if (p.sackCount > 0 && p.sack[1] > f.sndUna) {
            f.sacked.add(Math.max(p.sack[0], f.sndUna), p.sack[1]);
        }
        acked(f);
        if (f.sndUna >= f.size && !f.persistent) {
            finish(f, now);
            return;
        }
        if (!f.inRecovery) {
            f.inRecovery = true;
            f.recoveryPoint = f.sndNxt;
            f.rtxNext = f.sndUna;
            f.rtxLimit = 0;
        }
        f.rtxLimit = Math.max(f.rtxLimit, f.sacked.highest(f.sndUna));
        port.kick();
    }

    /** Where loss recovery resends from: the byte named (go-back-N) or its message's first byte (go-back-0). */
    private long restartAt(long psn) {
        long m = net.goBack0MessageBytes;
        return m == 0 ? psn : psn / m * m;
    }

    private void finish(Flow f, long now) {
        f.done = true;
        f.finishPs = now;
        active.remove(f);
        rr = 0;
        net.out.fct(f);
        net.finished++;
    }
}
