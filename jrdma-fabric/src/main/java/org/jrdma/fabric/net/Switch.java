package org.jrdma.fabric.net;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.jrdma.fabric.sim.EventHandler;

/**
 * An Ethernet switch: output-queued ports with 8 priority queues each (queue 0 strict, for
 * control frames; then the scenario's strict queues, highest first; then the other queues of 1–7
 * round-robin as HPCC's {@code BEgressQueue::DoDequeueRR} or by deficit weighted round robin,
 * skipping paused ones: {@link org.jrdma.fabric.scenario.Scenario.SchedulerSpec}), the
 * {@link SwitchMmu} for admission, PFC and ECN marking at dequeue, and shortest-path routing with
 * ECMP by a hash of the flow (per switch).
 *
 * <p>PFC: after admitting a packet the switch asks the MMU whether the ingress (port, queue) must
 * pause its upstream; after dequeuing, whether it may resume it. In quanta mode it refreshes the
 * pause at half its duration while it still holds it.
 */
final class Switch implements Node, EventHandler {
    private final Network net;
    private final int id;
    private final int index;
    Port[] ports;
    private ArrayDeque<Packet>[][] queues;
    /** Per port: the round-robin / DWRR position (the queue whose turn it is is 1 + rr). */
    private int[] rr;
    /** Per port and queue: the DWRR deficit counter, in bytes. */
    private long[][] deficit;
    /** Per port: the queue whose turn it is got its quantum for this turn. */
    private boolean[] credited;
    private boolean dwrr;
    private boolean anyStrict;
    private boolean[] strict = new boolean[SwitchMmu.QUEUES];
    /** Per queue: weight × quantum bytes. */
    private long[] quantum;
    SwitchMmu mmu;
    /** routes[dstNode] = candidate egress ports (null: unreachable). */
    int[][] routes;
    private final SplittableRandom random;
    long drops;
    long maxEgressBytes;
    /** The PFC watchdog, or null. */
    PfcWatchdog watchdog;

    Switch(Network net, int id, int index, SplittableRandom random) {
        this.net = net;
        this.id = id;
        this.index = index;
        this.random = random;
    }

    @SuppressWarnings("unchecked")
    void ports(Port[] p, SwitchMmu m) {
        this.ports = p;
        this.mmu = m;
        queues = new ArrayDeque[p.length][SwitchMmu.QUEUES];
        for (int i = 0; i < p.length; i++) {
            for (int q = 0; q < SwitchMmu.QUEUES; q++) {
                queues[i][q] = new ArrayDeque<>();
            }
        }
        rr = new int[p.length];
        deficit = new long[p.length][SwitchMmu.QUEUES];
        credited = new boolean[p.length];
    }

    /** The egress scheduling of queues 1–7 (before the first packet). */
    void scheduler(org.jrdma.fabric.scenario.Scenario.SchedulerSpec s) {
        dwrr = s.dwrr();
        strict = s.strict().clone();
        anyStrict = false;
        quantum = new long[SwitchMmu.QUEUES];
        for (int q = 1; q < SwitchMmu.QUEUES; q++) {
            anyStrict |= strict[q];
            quantum[q] = s.weights()[q] * s.quantumBytes();
        }
    }

    /** The switch's index among switches. */
    int index() {
        return index;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public int nodeType() {
        return 1;
    }

    /** Egress bytes waiting on a port (all queues). */
    long egressBytes(int port) {
        long b = 0;
        for (int q = 0; q < SwitchMmu.QUEUES; q++) {
            b += mmu.egressBytes(port, q);
        }
        return b;
    }

    /** The egress port for a packet to {@code dst} of flow {@code flow}. */
    int route(int dst, int flow) {
        int[] c = routes[dst];
        if (c.length == 1) {
            return c[0];
        }
        long h = (flow * 0x9E3779B97F4A7C15L) ^ (id * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return c[(int) Math.floorMod(h, (long) c.length)];
    }

    /** True if egress (port, q) holds packets. */
    boolean queued(int port, int q) {
        return !queues[port][q].isEmpty();
    }

    /** The watchdog's drop action: empties egress (port, q), accounting each packet as dequeued. */
    void flush(int port, int q) {
        Packet p;
        while ((p = queues[port][q].pollFirst()) != null) {
            mmu.dequeue(p.inPort, q, port, p.wireBytes);
            ports[p.inPort].release(q, p.wireBytes);
            if (net.pfc && mmu.shouldResume(p.inPort, q)) {
                ports[p.inPort].sendPfc(q, 0);
            }
            net.watchdogDrops++;
            net.pool.release(p);
        }
    }

    @Override
    public void receive(Port in, Packet p) {
        int out = route(p.dst, p.flow);
        int q = p.priority;
        if (q != 0 && watchdog != null && watchdog.dropping(out, q)) {
            in.release(q, p.wireBytes);
            net.watchdogDrops++;
            net.pool.release(p);
            return;
        }
        if (q != 0) {
            if (!net.ib && !mmu.admit(in.index, q, p.wireBytes)) {
                in.release(q, p.wireBytes);
                drops++;
                net.drops++;
                net.pool.release(p);
                return;
            }
            mmu.enqueue(in.index, q, out, p.wireBytes);
            long e = mmu.egressBytes(out, q);
            if (e > maxEgressBytes) {
                maxEgressBytes = e;
            }
        }
        p.inPort = in.index;
        queues[out][q].addLast(p);
        if (q != 0 && net.pfc && mmu.shouldPause(in.index, q)) {
            pause(in.index, q);
        }
        ports[out].kick();
    }

    private void pause(int port, int q) {
        net.pauses++;
        ports[port].sendPfc(q, net.pfcQuanta);
        if (net.quantaMode) {
            long d = PfcQuanta.durationPs(net.pfcQuanta, ports[port].rateBps);
            net.sim.after(Math.max(1, d / 2), this, port * SwitchMmu.QUEUES + q, null);
        }
    }

    @Override
    public void onEvent(int kind, Object payload) {
        int port = kind / SwitchMmu.QUEUES;
        int q = kind % SwitchMmu.QUEUES;
        if (mmu.pausing(port, q)) { // refresh the timed pause
            net.pauses++;
            ports[port].sendPfc(q, net.pfcQuanta);
            long d = PfcQuanta.durationPs(net.pfcQuanta, ports[port].rateBps);
            net.sim.after(Math.max(1, d / 2), this, kind, null);
        }
    }

    @Override
    public Packet next(Port out) {
        int o = out.index;
        ArrayDeque<Packet>[] qs = queues[o];
        Packet p = qs[0].peekFirst();
        if (p != null && out.mayStart(0, p.wireBytes)) {
            qs[0].pollFirst();
            ports[p.inPort].release(0, p.wireBytes);
            return p;
        }
        if (anyStrict) {
            for (int q = SwitchMmu.QUEUES - 1; q >= 1; q--) {
                if (strict[q] && eligible(out, qs[q], q)) {
                    return take(o, q);
                }
            }
        }
        return dwrr ? nextDwrr(out) : nextRoundRobin(out);
    }

    private static boolean eligible(Port out, ArrayDeque<Packet> dq, int q) {
        Packet h = dq.peekFirst();
        return h != null && out.mayStart(q, h.wireBytes);
    }

    /** HPCC's DoDequeueRR: the next non-empty, unpaused queue after the last one served, one packet. */
    private Packet nextRoundRobin(Port out) {
        int o = out.index;
        ArrayDeque<Packet>[] qs = queues[o];
        for (int i = 0; i < SwitchMmu.QUEUES - 1; i++) {
            int q = 1 + (rr[o] + i) % (SwitchMmu.QUEUES - 1);
            if (strict[q] || !eligible(out, qs[q], q)) {
                continue;
            }
            rr[o] = q % (SwitchMmu.QUEUES - 1); // the next round starts after q
            return take(o, q);
        }
        return null;
    }

    /**
     * Deficit weighted round robin over the non-strict queues 1–7 (Shreedhar and Varghese 1995): the
     * queue whose turn it is ({@code rr[o]}) gets its quantum once per turn and sends while its head
     * fits the deficit; an empty queue's deficit goes to 0 and the turn passes; a paused one passes
     * its turn and keeps its deficit. The quantum is at least one full frame, so a turn given to a
     * sendable queue always sends: at most one round of turns is looked at.
     */
    private Packet nextDwrr(Port out) {
        int o = out.index;
        ArrayDeque<Packet>[] qs = queues[o];
        long[] d = deficit[o];
        for (int visits = 0; visits <= SwitchMmu.QUEUES; visits++) {
            int q = 1 + rr[o];
            if (!strict[q]) {
                Packet h = qs[q].peekFirst();
                if (h == null) {
                    d[q] = 0;
                } else if (out.mayStart(q, h.wireBytes)) {
                    if (!credited[o]) {
                        d[q] += quantum[q];
                        credited[o] = true;
                    }
                    if (h.wireBytes <= d[q]) {
                        d[q] -= h.wireBytes;
                        Packet p = take(o, q);
                        if (qs[q].isEmpty()) {
                            d[q] = 0;
                            rr[o] = q % (SwitchMmu.QUEUES - 1);
                            credited[o] = false;
                        }
                        return p;
                    }
                }
            }
            rr[o] = q % (SwitchMmu.QUEUES - 1); // the turn passes to the next queue
            credited[o] = false;
        }
        return null;
    }

    /** Dequeues the head of data queue (o, q): MMU accounting, PFC resume, ECN marking at dequeue. */
    private Packet take(int o, int q) {
        Packet p = queues[o][q].pollFirst();
        ports[p.inPort].release(q, p.wireBytes);
        mmu.dequeue(p.inPort, q, o, p.wireBytes);
        if (net.pfc && mmu.shouldResume(p.inPort, q)) {
            ports[p.inPort].sendPfc(q, 0);
        }
        if (p.ect && mmu.shouldMark(o, q, random)) {
            p.ce = true;
            net.marked++;
        }
        if (net.hpcc && p.type == Packet.DATA && p.intHops < Hpcc.MAX_HOPS) { // HPCC's INT, pushed at dequeue
            p.ensureInt();
            int h = p.intHops++;
            p.intTs[h] = net.sim.now();
            p.intTx[h] = ports[o].txBytes + p.wireBytes;
            p.intQlen[h] = egressBytes(o);
            p.intBps[h] = ports[o].rateBps;
        }
        return p;
    }
}
