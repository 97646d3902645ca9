package org.jrdma.fabric.net;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jrdma.congestion.DcqcnNotificationPoint;
import org.jrdma.congestion.DcqcnReactionPoint;
import org.jrdma.fabric.scenario.FlowSpec;
import org.jrdma.fabric.scenario.LinkSpec;
import org.jrdma.fabric.scenario.NodeSpec;
import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.sim.EventHandler;
import org.jrdma.fabric.sim.Simulator;

/**
 * A scenario made into a network of {@link Nic}s, {@link Switch}es and {@link Port}s on one
 * {@link Simulator}, and its run. {@link #build} checks what only the built network can show (a
 * switch buffer that leaves no shared space after reserves and headroom, a flow between hosts with
 * no path) before anything runs; {@link #run} runs to the scenario's duration or a budget and
 * writes the outputs ({@link Outputs}) — partial ones, and the reason, when a budget stops it.
 *
 * <p>One thread (the caller's) runs everything; nothing is shared.
 */
public final class Network implements EventHandler {
    final Simulator sim;
    final PacketPool pool = new PacketPool();
    final Outputs out;
    final Scenario scenario;
    final long seed;
    final boolean pfc;
    final boolean quantaMode;
    final int pfcQuanta;
    final boolean ecn;
    /** HPCC: switches push INT, senders run {@link Hpcc}. */
    final boolean hpcc;
    /** InfiniBand credit links everywhere (no PFC, no MMU drops). */
    final boolean ib;
    final int mtu;
    final int header;
    final int ackInterval;
    final long rtoPs;
    final long nackIntervalPs;
    final long ccDelayPs;
    /** IRN's selective repeat (null: go-back-N / go-back-0). */
    final Scenario.IrnSpec irn;
    /** 0: go-back-N; else go-back-0 with messages of this many bytes. */
    final long goBack0MessageBytes;
    final Flow[] flows;
    private final Nic[] nics;
    private final CephReadWorkload workload;
    private final Switch[] switches;
    private final int[][][] qlenBins;
    private long samples;
    // counters
    long drops;
    long lost;
    long pauses;
    long timeouts;
    long cnpSent;
    long cnpHandled;
    long marked;
    long nacks;
    long dataPackets;
    long watchdogStorms;
    long watchdogDrops;
    long stuckDiscards;
    int finished;
    int stopped;

    /** The outcome of a run. */
    public record Result(Simulator.StopReason stop, long simulatedPs, long events, int flowsFinished, int flows,
            String summary) {
    }

    private Network(Scenario s, long seed, Path outDir) throws IOException, ScenarioException {
        this.scenario = s;
        this.seed = seed;
        this.sim = new Simulator(seed, s.eventBudget(), s.memoryBudgetBytes());
        this.pfc = s.pfc() != null;
        this.quantaMode = pfc && s.pfc().quantaMode();
        this.pfcQuanta = pfc ? s.pfc().quanta() : 0;
        this.ecn = s.ecn() != null;
        this.ib = s.ib() != null;
        this.hpcc = s.hpcc() != null;
        this.irn = s.irn();
        this.mtu = s.mtuBytes();
        this.header = s.headerBytes();
        this.ackInterval = s.ackInterval();
        this.rtoPs = s.rtoPs();
        this.nackIntervalPs = s.nackIntervalPs();
        this.ccDelayPs = s.ccDelayPs();
        this.goBack0MessageBytes = s.goBack0MessageBytes();

        int n = s.nodes().size();
        Node[] nodes = new Node[n];
        Map<String, Integer> ids = new HashMap<>();
        List<Nic> nicList = new ArrayList<>();
        List<Switch> swList = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            NodeSpec ns = s.nodes().get(i);
            ids.put(ns.name(), i);
            if (ns.isSwitch()) {
                Switch sw = new Switch(this, i, swList.size(), sim.random(2L * i + 1));
                swList.add(sw);
                nodes[i] = sw;
            } else {
                Nic nic = new Nic(this, i, ns.name());
                nicList.add(nic);
                nodes[i] = nic;
            }
        }
        nics = nicList.toArray(new Nic[0]);
        switches = swList.toArray(new Switch[0]);
        List<List<Port>> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ports.add(new ArrayList<>());
        }
        long hostRate = Long.MAX_VALUE;
        int linkNo = 0;
        for (LinkSpec l : s.links()) {
            int a = ids.get(l.a());
            int b = ids.get(l.b());
            Port pa = new Port(this, nodes[a], ports.get(a).size(), l.rateBps(), l.delayPs(), l.loss(),
                    sim.random(1_000_000L + 2L * linkNo));
            Port pb = new Port(this, nodes[b], ports.get(b).size(), l.rateBps(), l.delayPs(), l.loss(),
                    sim.random(1_000_000L + 2L * linkNo + 1));
            pa.peer = pb;
            pb.peer = pa;
            pa.dropEvery = l.dropEvery();
            pb.dropEvery = l.dropEvery();
            ports.get(a).add(pa);
            ports.get(b).add(pb);
            if (nodes[a] instanceof Nic || nodes[b] instanceof Nic) {
                hostRate = Math.min(hostRate, l.rateBps());
            }
            linkNo++;
        }
        for (Nic nic : nics) {
            nic.port = ports.get(nic.id()).getFirst();
        }
        if (ib) {
            for (List<Port> l : ports) {
                for (Port p : l) {
                    p.infiniband(s.ib().vlBufferBytes(), s.ib().creditUpdatePs());
                }
            }
            for (List<Port> l : ports) {
                for (Port p : l) {
                    p.initCredits();
                }
            }
        }
        Scenario.BufferSpec buf = s.buffer();
        for (Switch sw : switches) {
            Port[] p = ports.get(sw.id()).toArray(new Port[0]);
            long[] headroom = new long[p.length];
            int[] shift = new int[p.length];
            for (int i = 0; i < p.length; i++) {
                // HPCC third.cc: headroom = 3 × rate × delay / 8; shift 3 at NIC rate, −1 per doubling
                headroom[i] = (long) ((double) buf.headroomFactor() * p[i].rateBps * p[i].delayPs / 8e12);
                int sh = buf.baseShift();
                for (long r = p[i].rateBps; r > hostRate && sh > 0; r /= 2) {
                    sh--;
                }
                shift[i] = sh;
            }
            SwitchMmu mmu;
            try {
                mmu = new SwitchMmu(buf.bufferBytes(), buf.reserveBytes(), buf.resumeOffsetBytes(), headroom, shift);
            } catch (IllegalArgumentException e) {
                throw new ScenarioException(s.name(), 0, "buffer", "switch '" + s.nodes().get(sw.id()).name() + "': "
                        + e.getMessage());
            }
            if (ecn) {
                mmu.ecn(s.ecn().kminBytes(), s.ecn().kmaxBytes(), s.ecn().pmax());
            }
            sw.ports(p, mmu);
            sw.scheduler(s.scheduler());
        }
        routes(nodes, ports);
        for (org.jrdma.fabric.scenario.RouteSpec r : s.routes()) {
            Switch sw = (Switch) nodes[ids.get(r.sw())];
            int via = ids.get(r.via());
            for (Port p : sw.ports) {
                if (p.peer.node.id() == via) {
                    sw.routes[ids.get(r.dst())] = new int[] {p.index};
                    break;
                }
            }
        }
        if (s.watchdog() != null) {
            for (Switch sw : switches) {
                sw.watchdog = new PfcWatchdog(this, sw, s.watchdog());
            }
        }
        for (Scenario.StuckSpec st : s.stuck()) {
            ((Nic) nodes[ids.get(st.host())]).stuckAt(st.atPs());
        }
        List<FlowSpec> specs = new ArrayList<>(s.flows());
        org.jrdma.fabric.scenario.WorkloadSpec w = s.workload();
        if (w != null) { // persistent connections: client c to OSD o, and back
            for (int c = 0; c < w.clients(); c++) {
                for (int o = 0; o < w.osds(); o++) {
                    String cn = s.nodes().get(nics[w.osds() + c].id()).name();
                    String on = s.nodes().get(nics[o].id()).name();
                    specs.add(new FlowSpec("req-" + cn + "-" + on, cn, on, 0, 0, w.priority(), Long.MAX_VALUE, w.line()));
                    specs.add(new FlowSpec("resp-" + on + "-" + cn, on, cn, 0, 0, w.priority(), Long.MAX_VALUE, w.line()));
                }
            }
        }
        boolean tcp = !s.transport().equals("roce");
        this.flows = new Flow[specs.size()];
        for (int i = 0; i < flows.length; i++) {
            FlowSpec fs = specs.get(i);
            Nic src = (Nic) nodes[ids.get(fs.src())];
            Nic dst = (Nic) nodes[ids.get(fs.dst())];
            boolean cc = s.dcqcn() != null && !tcp;
            DcqcnReactionPoint rp = cc ? new DcqcnReactionPoint(s.dcqcn(), src.port.rateBps) : null;
            DcqcnNotificationPoint np = cc ? new DcqcnNotificationPoint(s.dcqcn().cnpIntervalNs()) : null;
            Flow f = new Flow(i, fs, src, dst, rp, np);
            if (tcp) {
                f.tcp = new TcpConnection(s.tcp(), mtu, f);
            }
            f.standalonePs = standalone(f, fs, nodes);
            if (irn != null && !tcp) {
                f.sacked = new Intervals();
                f.rcvOoo = new Intervals();
                f.bdpBytes = Math.max(mtu, (long) Math.ceil(src.port.rateBps * (double) f.baseRttPs / 8e12));
            }
            if (hpcc && !tcp) {
                f.hpcc = new Hpcc(s.hpcc(), src.port.rateBps, f.baseRttPs);
            }
            flows[i] = f;
        }
        if (w != null) {
            Nic[] osds = Arrays.copyOfRange(nics, 0, w.osds());
            Nic[] clients = Arrays.copyOfRange(nics, w.osds(), w.osds() + w.clients());
            Flow[][] req = new Flow[w.clients()][w.osds()];
            Flow[][] resp = new Flow[w.osds()][w.clients()];
            int k = s.flows().size();
            for (int c = 0; c < w.clients(); c++) {
                for (int o = 0; o < w.osds(); o++) {
                    req[c][o] = flows[k++];
                    resp[o][c] = flows[k++];
                }
            }
            workload = new CephReadWorkload(this, w, s.cpu(), osds, clients, req, resp, sim.random(7_000_000L));
        } else {
            workload = null;
        }
        qlenBins = new int[switches.length][][];
        for (int i = 0; i < switches.length; i++) {
            qlenBins[i] = new int[switches[i].ports.length][1];
        }
        this.out = new Outputs(outDir);
    }

    /**
     * Builds the network of a checked scenario, writing its outputs into {@code outDir}.
     *
     * @throws ScenarioException if the network cannot run (no shared buffer, no path for a flow)
     */
    public static Network build(Scenario s, long seed, Path outDir) throws IOException, ScenarioException {
        return new Network(s, seed, outDir);
    }

    /** Nodes in the network (hosts and switches). */
    int nodeCount() {
        return scenario.nodes().size();
    }

    /** Shortest paths from every switch to every host; ECMP over the equal-cost next hops. */
    private void routes(Node[] nodes, List<List<Port>> ports) {
        int n = nodes.length;
        for (Switch sw : switches) {
            sw.routes = new int[n][];
        }
        int[] dist = new int[n];
        ArrayDeque<Integer> bfs = new ArrayDeque<>();
        List<Integer> cand = new ArrayList<>();
        for (Nic h : nics) {
            Arrays.fill(dist, Integer.MAX_VALUE);
            dist[h.id()] = 0;
            bfs.add(h.id());
            while (!bfs.isEmpty()) {
                int v = bfs.poll();
                if (v != h.id() && nodes[v] instanceof Nic) {
                    continue; // hosts do not forward
                }
                for (Port p : ports.get(v)) {
                    int u = p.peer.node.id();
                    if (dist[u] == Integer.MAX_VALUE) {
                        dist[u] = dist[v] + 1;
                        bfs.add(u);
                    }
                }
            }
            for (Switch sw : switches) {
                if (dist[sw.id()] == Integer.MAX_VALUE) {
                    continue;
                }
                cand.clear();
                for (Port p : sw.ports) {
                    int u = p.peer.node.id();
                    if (dist[u] == dist[sw.id()] - 1 && (u == h.id() || nodes[u] instanceof Switch)) {
                        cand.add(p.index);
                    }
                }
                sw.routes[h.id()] = cand.stream().mapToInt(Integer::intValue).toArray();
            }
        }
    }

    /** HPCC's standalone FCT: base RTT + (size + headers) × 8 / bottleneck rate; checks the path exists. */
    private long standalone(Flow f, FlowSpec fs, Node[] nodes) throws ScenarioException {
        Port p = f.src.port;
        long delay = 0;
        long ser = 0;
        long bottleneck = Long.MAX_VALUE;
        int ack = header + Nic.ACK_EXTRA;
        for (int hops = 0; ; hops++) {
            delay += p.delayPs;
            ser += p.serializationPs(mtu + header) + p.serializationPs(ack);
            bottleneck = Math.min(bottleneck, p.rateBps);
            Node next = p.peer.node;
            if (next == f.dst) {
                break;
            }
            if (!(next instanceof Switch sw) || sw.routes[f.dst.id()] == null || hops > nodes.length) {
                throw new ScenarioException(scenario.name(), fs.line(), "dst", "no path from '" + fs.src() + "' to '"
                        + fs.dst() + "'" + (hops > nodes.length ? " (the routes make a loop)" : ""));
            }
            p = sw.ports[sw.route(f.dst.id(), f.index)];
        }
        f.baseRttPs = 2 * delay + ser;
        long packets = (f.size + mtu - 1) / mtu;
        long bytes = f.size + packets * header;
        return 2 * delay + ser + (long) Math.ceil(bytes * 8e12 / bottleneck);
    }

    private static final int SAMPLE = 0;

    /** Runs the scenario, writes the outputs and returns what happened. */
    public Result run() throws IOException {
        for (Flow f : flows) {
            f.src.schedule(f);
        }
        sim.at(0, this, SAMPLE, null);
        if (workload != null) {
            workload.start();
        }
        for (Switch sw : switches) {
            if (sw.watchdog != null) {
                sw.watchdog.start();
            }
        }
        Simulator.StopReason stop;
        try (out) {
            stop = sim.run(scenario.durationPs());
            String summary = summary(stop);
            out.text("summary.txt", summary);
            out.text("qlen.txt", qlen());
            return new Result(stop, sim.now(), sim.events(), finished, flows.length, summary);
        }
    }

    @Override
    public void onEvent(int kind, Object payload) {
        long now = sim.now();
        samples++;
        for (Switch sw : switches) {
            int[][] bins = qlenBins[sw.index()];
            for (int i = 0; i < sw.ports.length; i++) {
                long b = sw.egressBytes(i);
                int kb = (int) (b / 1000);
                if (kb >= bins[i].length) {
                    bins[i] = Arrays.copyOf(bins[i], kb + 1);
                }
                bins[i][kb]++;
                if (b > 0) {
                    out.queue(now, sw.id(), i, b);
                }
            }
        }
        long interval = scenario.samplePs();
        for (Flow f : flows) {
            if (f.started && !f.done && !f.persistent) {
                long rate = f.rp != null ? (long) f.rp.rateBps(now / 1000)
                        : f.hpcc != null ? (long) f.hpcc.rateBps() : f.src.port.rateBps;
                long goodput = (long) ((f.delivered - f.deliveredAtSample) * 8e12 / interval);
                out.rate(now, f.index, rate, goodput);
            }
            f.deliveredAtSample = f.delivered;
        }
        if (now + interval <= scenario.durationPs()) {
            sim.after(interval, this, SAMPLE, null);
        }
    }

    private String qlen() {
        StringBuilder b = new StringBuilder();
        b.append("time: ").append(sim.now() / 1000).append('\n');
        for (Switch sw : switches) {
            int[][] bins = qlenBins[sw.index()];
            for (int i = 0; i < bins.length; i++) {
                b.append(sw.id()).append(' ').append(i + 1);
                for (int c : bins[i]) {
                    b.append(' ').append(c);
                }
                b.append('\n');
            }
        }
        return b.toString();
    }

    private String summary(Simulator.StopReason stop) {
        StringBuilder b = new StringBuilder();
        String why = switch (stop) {
            case END_TIME, IDLE -> "completed";
            case EVENT_BUDGET -> "STOPPED: event budget of " + scenario.eventBudget() + " events spent (partial outputs)";
            case MEMORY_BUDGET -> "STOPPED: memory budget of " + scenario.memoryBudgetBytes()
                    + " bytes passed (partial outputs)";
        };
        long maxQueue = 0;
        long swDrops = 0;
        for (Switch sw : switches) {
            maxQueue = Math.max(maxQueue, sw.maxEgressBytes);
            swDrops += sw.drops;
        }
        long flowTimeouts = 0;
        for (Flow f : flows) {
            flowTimeouts += f.timeouts;
        }
        line(b, "scenario", scenario.name());
        line(b, "seed", seed);
        line(b, "status", why);
        line(b, "simulated_ns", sim.now() / 1000);
        line(b, "events", sim.events());
        line(b, "max_pending_events", sim.maxPending());
        line(b, "nodes", scenario.nodes().size());
        line(b, "hosts", nics.length);
        line(b, "switches", switches.length);
        line(b, "links", scenario.links().size());
        line(b, "dcqcn", scenario.dcqcn() == null ? "off" : scenario.dcqcn().name());
        line(b, "hpcc", scenario.hpcc() == null ? "off" : String.format(Locale.ROOT, "eta=%s max-stage=%d rate-ai=%d",
                scenario.hpcc().eta(), scenario.hpcc().maxStage(), scenario.hpcc().rateAiBps()));
        line(b, "pfc", !pfc ? "off" : quantaMode ? "quanta " + pfcQuanta : "xon-xoff");
        if (ib) {
            long overruns = 0;
            int maxHeld = 0;
            for (Switch sw : switches) {
                for (Port p : sw.ports) {
                    overruns += p.creditOverruns;
                    maxHeld = Math.max(maxHeld, p.maxHeldBlocks);
                }
            }
            line(b, "ib_vl_buffer_blocks", scenario.ib().vlBufferBytes() / org.jrdma.fabric.scenario.IbSpec.BLOCK);
            line(b, "ib_max_held_blocks", maxHeld);
            line(b, "ib_credit_overruns", overruns);
        }
        line(b, "ecn", !ecn ? "off" : String.format(Locale.ROOT, "kmin=%d kmax=%d pmax=%s", scenario.ecn().kminBytes(),
                scenario.ecn().kmaxBytes(), scenario.ecn().pmax()));
        line(b, "watchdog", scenario.watchdog() == null ? "off" : String.format(Locale.ROOT,
                "%s poll=%dus detect=%dus restore=%dus action=%s", scenario.watchdog().name(),
                scenario.watchdog().pollPs() / 1_000_000, scenario.watchdog().detectPs() / 1_000_000,
                scenario.watchdog().restorePs() / 1_000_000, scenario.watchdog().drop() ? "drop" : "forward"));
        line(b, "scheduler", schedulerSummary(scenario.scheduler()));
        line(b, "cc_reaction_delay_ns", ccDelayPs / 1000);
        line(b, "flows", flows.length);
        line(b, "flows_finished", finished);
        line(b, "recovery", irn != null ? String.format(Locale.ROOT, "selective-repeat rto-low=%dus rto-high=%dus rto-n=%d "
                + "bdp-fc=%s", irn.rtoLowPs() / 1_000_000, irn.rtoHighPs() / 1_000_000, irn.n(), irn.bdpFc() ? "on" : "off")
                : goBack0MessageBytes == 0 ? "go-back-n" : "go-back-0 message=" + goBack0MessageBytes);
        long resent = 0;
        for (Flow f : flows) {
            resent += f.retransmitted;
        }
        line(b, "selective_retransmits", resent);
        line(b, "data_packets_sent", dataPackets);
        long delivered = 0;
        for (Flow f : flows) {
            delivered += f.delivered;
        }
        line(b, "delivered_bytes", delivered);
        line(b, "ecn_marked", marked);
        line(b, "np_cnp_sent", cnpSent);
        line(b, "rp_cnp_handled", cnpHandled);
        line(b, "pfc_pause_frames", pauses);
        line(b, "switch_drops", swDrops);
        line(b, "link_losses", lost);
        line(b, "nacks", nacks);
        line(b, "timeouts", flowTimeouts);
        line(b, "watchdog_storms", watchdogStorms);
        line(b, "watchdog_drops", watchdogDrops);
        line(b, "stuck_nic_discards", stuckDiscards);
        line(b, "flows_stopped", stopped);
        line(b, "max_egress_queue_bytes", maxQueue);
        long buffered = 0;
        int pausedNonEmpty = 0;
        for (Switch sw : switches) {
            for (int i = 0; i < sw.ports.length; i++) {
                buffered += sw.egressBytes(i);
                for (int q = 1; q < SwitchMmu.QUEUES; q++) {
                    if (sw.queued(i, q) && sw.ports[i].paused(q)) {
                        pausedNonEmpty++;
                    }
                }
            }
        }
        line(b, "buffered_bytes_at_end", buffered);
        line(b, "paused_nonempty_queues_at_end", pausedNonEmpty);
        line(b, "samples", samples);
        line(b, "packets_allocated", pool.created());
        line(b, "transport", scenario.transport());
        if (!scenario.transport().equals("roce")) {
            long rtx = 0;
            long fr = 0;
            for (Flow f : flows) {
                if (f.tcp != null) {
                    rtx += f.tcp.retransmits;
                    fr += f.tcp.fastRetransmits;
                }
            }
            line(b, "tcp_retransmitted_segments", rtx);
            line(b, "tcp_fast_recoveries", fr);
            line(b, "tcp_min_rto_us", scenario.tcp().minRtoPs() / 1_000_000);
            line(b, "tcp_dctcp", scenario.tcp().dctcp() ? "on" : "off");
        }
        if (workload != null) {
            workload.summary(b, sim.now());
        }
        return b.toString();
    }

    private static String schedulerSummary(Scenario.SchedulerSpec s) {
        StringBuilder b = new StringBuilder(s.dwrr() ? "dwrr" : "rr");
        if (s.dwrr()) {
            b.append(" quantum=").append(s.quantumBytes()).append(" weights=");
            for (int q = 1; q < SwitchMmu.QUEUES; q++) {
                b.append(q > 1 ? "," : "").append(s.weights()[q]);
            }
        }
        StringBuilder st = new StringBuilder();
        for (int q = SwitchMmu.QUEUES - 1; q >= 1; q--) {
            if (s.strict()[q]) {
                st.append(st.isEmpty() ? "" : ",").append(q);
            }
        }
        if (!st.isEmpty()) {
            b.append(" strict=").append(st);
        }
        return b.toString();
    }

    private static void line(StringBuilder b, String k, Object v) {
        b.append(k).append(' ').append(v).append('\n');
    }
}
