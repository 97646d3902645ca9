package org.jrdma.fabric.net;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.jrdma.fabric.sim.EventHandler;

/**
 * An Ethernet switch: output-queued ports with 8 priority queues each (queue 0 strict, for
 * control frames; queues 1–7 round-robin, skipping paused ones, as HPCC's
 * {@code BEgressQueue::DoDequeueRR}), the {@link SwitchMmu} for admission, PFC and ECN marking at
 * dequeue, and shortest-path routing with ECMP by a hash of the flow (per switch).
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
    private int[] rr;
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
        for (int i = 0; i < SwitchMmu.QUEUES - 1; i++) {
            int q = 1 + (rr[o] + i) % (SwitchMmu.QUEUES - 1);
            if (qs[q].isEmpty() || !out.mayStart(q, qs[q].peekFirst().wireBytes)) {
                continue;
            }
            p = qs[q].pollFirst();
            ports[p.inPort].release(q, p.wireBytes);
            rr[o] = q % (SwitchMmu.QUEUES - 1); // the next round starts after q
            mmu.dequeue(p.inPort, q, o, p.wireBytes);
            if (net.pfc && mmu.shouldResume(p.inPort, q)) {
                ports[p.inPort].sendPfc(q, 0);
            }
            if (p.ect && mmu.shouldMark(o, q, random)) {
                p.ce = true;
                net.marked++;
            }
            return p;
        }
        return null;
    }
}
