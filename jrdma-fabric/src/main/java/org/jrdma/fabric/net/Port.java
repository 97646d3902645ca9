package org.jrdma.fabric.net;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.jrdma.fabric.sim.EventHandler;
import org.jrdma.fabric.sim.Simulator;

/**
 * One end of a full-duplex link: serializes the frames its node hands it at the link rate,
 * delivers them after the propagation delay to the peer port, loses each with the link's
 * probability on arrival (HPCC's {@code ERROR_RATE_PER_LINK}), and keeps the PFC state that the
 * peer's pause frames set on this port's egress priorities.
 *
 * <p>The frames on the wire wait in a FIFO with their arrival times and only the head has an event
 * in the simulator's queue (a frame starts after the previous one ended, so arrivals on a link come
 * in sending order): the event queue holds a few events per port, not one per packet in flight.
 *
 * <p>PFC frames are sent at once, beside the data (a frame of 64 bytes: it takes its serialization
 * time and the delay, but not the port's transmitter). Pause semantics: XOFF/XON (paused until an
 * XON, as HPCC) or timed (802.1Qbb: a pause of quanta × 512 bit times that an XON, a refresh or
 * its expiry ends).
 */
final class Port implements EventHandler {
    private static final int TX_DONE = 0;
    private static final int ARRIVE = 1;
    private static final int DELIVER = 2;
    private static final int PAUSE_EXPIRE = 3;
    /** A PFC frame's size on the wire. */
    static final int PFC_FRAME_BYTES = 64;

    final Node node;
    /** This port's index on its node (HPCC's ifIndex is index + 1). */
    final int index;
    final long rateBps;
    final long delayPs;
    private final double loss;
    private final SplittableRandom random;
    private final Network net;
    Port peer;
    private boolean busy;
    /** Frames on the wire towards the peer, in arrival order (arrivals on one link are monotonic). */
    private final ArrayDeque<Packet> wire = new ArrayDeque<>();
    private final boolean[] paused = new boolean[8];
    private final long[] pauseUntil = new long[8];
    long txBytes;
    /** Bytes sent per priority (the PFC watchdog's "did the queue transmit"). */
    final long[] txBytesByPriority = new long[8];
    /** When a pause frame for a priority last arrived (the watchdog's restoration check). */
    final long[] lastPauseRxPs = new long[8];
    /** The watchdog has this priority in storm mode: the peer's pauses are ignored. */
    final boolean[] ignorePause = new boolean[8];
    long lost;

    Port(Network net, Node node, int index, long rateBps, long delayPs, double loss, SplittableRandom random) {
        this.net = net;
        this.node = node;
        this.index = index;
        this.rateBps = rateBps;
        this.delayPs = delayPs;
        this.loss = loss;
        this.random = random;
    }

    /** The time {@code bytes} take on this link, in ps. */
    long serializationPs(int bytes) {
        return (bytes * 8_000_000_000_000L + rateBps - 1) / rateBps;
    }

    /** True if the peer's pause holds this port's egress priority {@code prio} (and the watchdog does not ignore it). */
    boolean paused(int prio) {
        return paused[prio] && !ignorePause[prio];
    }

    /** True if the peer's last pause for {@code prio} is in effect, whether or not it is ignored. */
    boolean pauseInEffect(int prio) {
        return paused[prio];
    }

    /** The node may have something to send: start the transmitter if idle. */
    void kick() {
        if (busy) {
            return;
        }
        Packet p = node.next(this);
        if (p == null) {
            return;
        }
        busy = true;
        txBytes += p.wireBytes;
        txBytesByPriority[p.priority] += p.wireBytes;
        long ser = serializationPs(p.wireBytes);
        Simulator sim = net.sim;
        sim.after(ser, this, TX_DONE, null);
        p.arrivalPs = sim.now() + ser + delayPs;
        wire.addLast(p);
        if (wire.size() == 1) {
            sim.at(p.arrivalPs, this, DELIVER, null);
        }
    }

    /** Sends a PFC frame for {@code prio} to the peer: {@code quanta} &gt; 0 pauses, 0 resumes. */
    void sendPfc(int prio, int quanta) {
        Packet p = net.pool.get();
        p.type = Packet.PFC;
        p.wireBytes = PFC_FRAME_BYTES;
        p.pfcPriority = prio;
        p.pfcQuanta = quanta;
        net.sim.after(serializationPs(PFC_FRAME_BYTES) + delayPs, peer, ARRIVE, p);
    }

    @Override
    public void onEvent(int kind, Object payload) {
        switch (kind) {
            case TX_DONE -> {
                busy = false;
                kick();
            }
            case ARRIVE -> arrive((Packet) payload);
            case DELIVER -> {
                Packet p = wire.pollFirst();
                Packet next = wire.peekFirst();
                if (next != null) {
                    net.sim.at(next.arrivalPs, this, DELIVER, null);
                }
                peer.arrive(p);
            }
            default -> {
                int prio = kind - PAUSE_EXPIRE;
                if (paused[prio] && net.sim.now() >= pauseUntil[prio]) {
                    paused[prio] = false;
                    net.out.pfc(net.sim.now(), node, this, 0);
                    kick();
                }
            }
        }
    }

    private void arrive(Packet p) {
        if (loss > 0 && random.nextDouble() < loss) {
            lost++;
            net.lost++;
            net.pool.release(p);
            return;
        }
        if (p.type == Packet.PFC) {
            pfc(p.pfcPriority, p.pfcQuanta);
            net.pool.release(p);
            return;
        }
        node.receive(this, p);
    }

    private void pfc(int prio, int quanta) {
        long now = net.sim.now();
        if (quanta == 0) {
            if (paused[prio]) {
                paused[prio] = false;
                net.out.pfc(now, node, this, 0);
                kick();
            }
            return;
        }
        boolean was = paused[prio];
        paused[prio] = true;
        lastPauseRxPs[prio] = now;
        if (!was) {
            net.out.pfc(now, node, this, 1);
        }
        if (net.quantaMode) {
            pauseUntil[prio] = now + PfcQuanta.durationPs(quanta, rateBps);
            net.sim.at(pauseUntil[prio], this, PAUSE_EXPIRE + prio, null);
        } else {
            pauseUntil[prio] = Long.MAX_VALUE;
        }
    }
}
