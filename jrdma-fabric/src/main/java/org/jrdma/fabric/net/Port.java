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
    private static final int IB_UPDATE = 16;
    /** An InfiniBand flow-control packet's size on the wire (IBA: 6 bytes; 8 with framing). */
    static final int FC_PACKET_BYTES = 8;
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

    // InfiniBand credits (null arrays on Ethernet). Sender side: FCTBS and the last FCCL per VL.
    private int[] fctbs;
    private int[] fccl;
    // Receiver side: ABR, free blocks, the least time between updates, a pending update per VL.
    private int[] abr;
    private int[] freeBlocks;
    private int capacityBlocks;
    private long creditUpdatePs;
    private boolean[] updatePending;
    private long[] lastUpdatePs;
    /** Most blocks held at once on any VL of this (receiving) port. */
    int maxHeldBlocks;
    /** Packets that arrived without a credit (a model error: must stay 0). */
    long creditOverruns;

    /** Makes this an InfiniBand port: {@code vlBufferBytes} per VL at the receiver, credits at the sender. */
    void infiniband(long vlBufferBytes, long creditUpdatePs) {
        capacityBlocks = (int) (vlBufferBytes / org.jrdma.fabric.scenario.IbSpec.BLOCK);
        this.creditUpdatePs = creditUpdatePs;
        fctbs = new int[8];
        fccl = new int[8];
        abr = new int[8];
        freeBlocks = new int[8];
        updatePending = new boolean[8];
        lastUpdatePs = new long[8];
        java.util.Arrays.fill(freeBlocks, capacityBlocks);
        java.util.Arrays.fill(lastUpdatePs, Long.MIN_VALUE / 2);
    }

    /** Link initialisation: the sender learns the peer's first FCCL per VL. */
    void initCredits() {
        if (fccl != null) {
            for (int vl = 0; vl < 8; vl++) {
                fccl[vl] = Math.min(peer.capacityBlocks, 2048) & 0xFFF;
            }
        }
    }

    static int blocks(int wireBytes) {
        return (wireBytes + org.jrdma.fabric.scenario.IbSpec.BLOCK - 1) / org.jrdma.fabric.scenario.IbSpec.BLOCK;
    }

    /**
     * True if a frame of {@code wireBytes} may start on priority / VL {@code prio} now: on Ethernet,
     * when PFC does not hold it; on InfiniBand, when FCCL − FCTBS (mod 4096) covers its blocks.
     */
    boolean mayStart(int prio, int wireBytes) {
        if (fctbs == null) {
            return prio == 0 || !paused(prio);
        }
        return ((fccl[prio] - fctbs[prio]) & 0xFFF) >= blocks(wireBytes);
    }

    /** InfiniBand: the node freed {@code wireBytes} of VL {@code vl} that arrived on this port. */
    void release(int vl, int wireBytes) {
        if (abr == null) {
            return;
        }
        freeBlocks[vl] += blocks(wireBytes);
        scheduleUpdate(vl);
    }

    private void scheduleUpdate(int vl) {
        if (!updatePending[vl]) {
            updatePending[vl] = true;
            long at = Math.max(net.sim.now(), lastUpdatePs[vl] + creditUpdatePs);
            net.sim.at(at, this, IB_UPDATE + vl, null);
        }
    }

    /** Drop data frames whose IP ID is ≡ −1 mod this (0: none). */
    int dropEvery;

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
        if (fctbs != null) {
            fctbs[p.priority] = (fctbs[p.priority] + blocks(p.wireBytes)) & 0xFFF;
        }
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
                if (kind >= IB_UPDATE) { // send FCCL = ABR + free (at most 2048 ahead) for the VL
                    int vl = kind - IB_UPDATE;
                    updatePending[vl] = false;
                    lastUpdatePs[vl] = net.sim.now();
                    Packet fc = net.pool.get();
                    fc.type = Packet.FC;
                    fc.wireBytes = FC_PACKET_BYTES;
                    fc.pfcPriority = vl;
                    fc.psn = (abr[vl] + Math.min(freeBlocks[vl], 2048)) & 0xFFF;
                    net.sim.after(serializationPs(FC_PACKET_BYTES) + delayPs, peer, ARRIVE, fc);
                    return;
                }
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
        if (p.type == Packet.FC) {
            fccl[p.pfcPriority] = (int) p.psn;
            net.pool.release(p);
            kick();
            return;
        }
        if (abr != null) { // an InfiniBand receiver: the packet takes its blocks of the VL's buffer
            int vl = p.priority;
            int b = blocks(p.wireBytes);
            if (freeBlocks[vl] < b) {
                creditOverruns++;
                net.drops++;
                net.pool.release(p);
                return;
            }
            abr[vl] = (abr[vl] + b) & 0xFFF;
            freeBlocks[vl] -= b;
            maxHeldBlocks = Math.max(maxHeldBlocks, capacityBlocks - freeBlocks[vl]);
            if (node instanceof Nic) { // an HCA takes the packet into host memory at once
                freeBlocks[vl] += b;
                scheduleUpdate(vl);
            }
        }
        if (dropEvery > 0 && p.type == Packet.DATA && p.ipId % dropEvery == dropEvery - 1) {
            lost++;
            net.lost++;
            net.pool.release(p);
            return;
        }
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
