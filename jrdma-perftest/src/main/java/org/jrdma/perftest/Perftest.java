package org.jrdma.perftest;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;

/**
 * One run of a perftest tool: device, out-of-band exchange, QP connection, the test and its
 * output, in the order of perftest 4.5's {@code write_bw.c}, {@code write_lat.c},
 * {@code read_bw.c}, {@code read_lat.c}, {@code send_bw.c}, {@code send_lat.c},
 * {@code atomic_bw.c} and {@code atomic_lat.c} (which differ in the number and place of the
 * hand-shakes the peer expects).
 */
public final class Perftest {
    /** Seconds the client waits for the TCP connection. */
    static final int CONNECT_TIMEOUT_MS = 20_000;

    private final Params p;
    private final Printer out;
    private Resources res;
    private OobChannel comm;
    private Dest[] my;
    private Dest[] rem;
    private Plot plot;
    /** The test's connections through the CM ({@code -R}), else null. */
    private CmQps cmQps;
    /** perftest's receive credits of ib_send_bw on iWARP ({@code send_rcredit}), else null. */
    private SendCredits credits;

    public Perftest(Params p, PrintStream stdout) {
        this.p = p;
        this.out = new Printer(stdout);
    }

    /**
     * Runs the test.
     *
     * @return the exit status (0)
     * @throws PerftestException for any failure, with a one-line reason
     */
    public int run() {
        if (p.inlineLoweredForUd) {
            out.out(Printer.RESULT_LINE);
            System.err.println("Setting inline size to " + Params.MAX_INLINE_UD + " (Max inline size in UD)");
        }
        CmLink link = null;
        Context ctx;
        if (p.commRdmaCm()) {
            // rdma_cm mode: the device is the one the CM opens for the connection's address
            link = cmListenOrResolve();
            ctx = link.verbs();
            p.ibDev = ctx.device().name();
        } else {
            ctx = openDevice(p);
        }
        res = new Resources(p, ctx);
        StatsFile stats = StatsFile.start(ctx, p.tool, p.statsFile);
        try {
            checkLink(ctx);
            if (p.machine == Params.Machine.SERVER) {
                ServerSocket ss = link == null ? OobChannel.listen(p.port) : null;
                if (p.full()) {
                    out.out(Printer.WAITING);
                }
                // listening already (a client's connect waits in the backlog), not yet talking
                JitWarmUp.run(ctx, p, res.gid);
                if (link != null) {
                    link.accept();
                    comm = new OobChannel(link, false, "the rdma_cm client");
                } else {
                    comm = OobChannel.accept(ss);
                }
            } else {
                JitWarmUp.run(ctx, p, res.gid);
                if (link != null) {
                    link.connect();
                    comm = new OobChannel(link, true, p.serverName + ":" + p.port);
                } else {
                    comm = OobChannel.connect(p.serverName, p.port, CONNECT_TIMEOUT_MS);
                }
            }
            link = null; // comm owns it now
            comm.exchangeVersions(OobChannel.VERSION);
            int[] sys = comm.exchangeSysData(p.cycleBuffer, p.cacheLineSize);
            p.cycleBuffer = Math.max(p.cycleBuffer, sys[0]);
            p.cacheLineSize = Math.max(p.cacheLineSize, sys[1]);
            int remMtu = comm.exchangeMtu(p.currMtu);
            if (remMtu >= 1 && remMtu <= 5 && p.currMtu > remMtu) {
                p.currMtu = remMtu;
            }
            if (p.connection == Params.Connection.UD && p.size > p.mtuBytes()) {
                if (p.method == Params.Method.ALL || !p.reqSize) {
                    System.err.println(" Max msg size in UD is MTU " + p.mtuBytes());
                    System.err.println(" Changing to this MTU");
                    p.size = p.mtuBytes();
                } else {
                    throw new PerftestException("max message size in UD cannot be greater than the MTU ("
                            + p.mtuBytes() + " bytes)");
                }
            }
            res.init();
            if (p.rdmaCm) {
                connectThroughCm();
            }
            my = res.myDests();
            comm.destGidIndex(p.gidIndex);
            rem = new Dest[p.numQps];
            if (p.full()) {
                out.out(Printer.testInfo(p, ctx.device().name()));
            }
            if (p.plotFile != null) {
                plot = Plot.forRun(p, ctx.device().name());
            }
            if (p.verb == Verb.SEND) {
                if (p.kind == Params.Kind.BW) {
                    sendBw();
                } else {
                    sendLat();
                }
            } else if (p.kind == Params.Kind.BW) {
                rdmaBw();
            } else if (p.verb == Verb.WRITE) {
                writeLat();
            } else {
                readAtomicLat();
            }
            if (plot != null) {
                if (plot.size() > 0) {
                    plot.write(java.nio.file.Path.of(p.plotFile));
                } else {
                    System.err.println(" No results measured on this side: no plot written to " + p.plotFile);
                }
            }
            return 0;
        } finally {
            if (cmQps != null) {
                cmQps.close(); // the test's connections first, then the exchange's (perftest's destroy_ctx order)
            }
            if (comm != null) {
                comm.close();
            }
            if (link != null) {
                link.close();
            }
            stats.close();
            if (credits != null) {
                credits.close();
            }
            res.close();
        }
    }

    // ---------------------------------------------------------------- rdma_cm (-R, -z)

    /** The address of this side's device in rdma_cm mode ({@link CmLink#deviceAddress}). */
    private InetAddress cmLocal;

    /** The server's listener or the client's resolved ID of the exchange's connection. */
    private CmLink cmListenOrResolve() {
        cmLocal = CmLink.deviceAddress(p.ibDev);
        if (p.machine == Params.Machine.SERVER) {
            return CmLink.listen(new InetSocketAddress(cmLocal, p.port));
        }
        return CmLink.resolve(cmSource(), cmServer());
    }

    /** The client's source: the device's address with {@code -d}, else the routing's choice. */
    private InetSocketAddress cmSource() {
        return p.ibDev == null ? null : new InetSocketAddress(cmLocal, 0);
    }

    private InetSocketAddress cmServer() {
        try {
            return new InetSocketAddress(InetAddress.getByName(p.serverName), p.port);
        } catch (UnknownHostException e) {
            throw new PerftestException("Problem in resolving basic address and port: cannot resolve '" + p.serverName + "'");
        }
    }

    /**
     * {@code create_rdma_cm_connection}: a zeroed hand-shake, the test's connections ({@link CmQps}), a
     * zeroed hand-shake. The server listens before the first hand-shake (perftest: after it), so that
     * the client never meets a port nobody listens on.
     */
    private void connectThroughCm() {
        if (p.machine == Params.Machine.SERVER) {
            cmQps = CmQps.listen(p, new InetSocketAddress(cmLocal, p.port), System.err);
            comm.handShake(Dest.zero());
            cmQps.acceptAll(res);
        } else {
            comm.handShake(Dest.zero());
            cmQps = CmQps.client(p, System.err);
            cmQps.connectAll(res, cmSource(), cmServer());
        }
        comm.handShake(Dest.zero());
    }

    /** perftest's ctx_connect, unless the CM connected the QPs ({@code -R}): the GID types, then RTR/RTS. */
    private void connectQps() {
        if (!p.rdmaCm) {
            checkGidTypes();
            res.connect(rem, my);
        }
    }

    /** The verb ctx_print_pingpong_data prints for: the exchange's (SEND) over rdma_cm, the test's otherwise. */
    private Verb printedVerb() {
        return p.commRdmaCm() ? Verb.SEND : p.verb;
    }

    // ---------------------------------------------------------------- device

    /**
     * The device of {@code -d}, or the first that opens: a software device whose address another
     * process on this host already holds fails with EADDRINUSE and is skipped, so two tools on one
     * host pair up without configuration.
     */
    static Context openDevice(Params p) {
        List<Device> devices;
        try {
            devices = Verbs.getDeviceList();
        } catch (RuntimeException e) {
            throw new PerftestException("cannot list RDMA devices: " + e.getMessage());
        }
        if (devices.isEmpty()) {
            throw new PerftestException("no RDMA devices found");
        }
        if (p.ibDev != null) {
            for (Device d : devices) {
                if (d.name().equals(p.ibDev)) {
                    try {
                        return d.open();
                    } catch (VerbsException e) {
                        throw new PerftestException("cannot open device " + d.name() + ": " + e.getMessage());
                    }
                }
            }
            throw new PerftestException("no RDMA device '" + p.ibDev + "' (devices: "
                    + String.join(", ", devices.stream().map(Device::name).toList()) + ")");
        }
        List<String> why = new ArrayList<>();
        for (Device d : devices) {
            try {
                Context c = d.open();
                p.ibDev = d.name();
                return c;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EADDRINUSE && e.errno() != Errno.EADDRNOTAVAIL) {
                    throw new PerftestException("cannot open device " + d.name() + ": " + e.getMessage());
                }
                why.add(d.name() + ": " + e.getMessage());
            }
        }
        throw new PerftestException("no RDMA device could be opened (" + String.join("; ", why) + ")");
    }

    /** {@code check_link} and {@code set_mtu}: port state, link layer, GID index, MTU, inline, out_reads. */
    private void checkLink(Context ctx) {
        PortAttr pa;
        try {
            pa = ctx.queryPort(p.ibPort);
        } catch (VerbsException e) {
            throw new PerftestException("unable to query port " + p.ibPort + " of " + ctx.device().name() + ": "
                    + e.getMessage());
        }
        if (pa.state() != PortState.ACTIVE) {
            throw new PerftestException("port number " + p.ibPort + " state is " + pa.state());
        }
        p.transport = ctx.device().transportType() == TransportType.IWARP ? "IW" : "IB";
        p.linkType = pa.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "IB";
        res.lid = pa.lid();
        if (p.useGidUser) {
            try {
                res.gid = ctx.queryGid(p.ibPort, p.gidIndex);
            } catch (VerbsException e) {
                throw new PerftestException("cannot read GID index " + p.gidIndex + " of " + ctx.device().name() + ": "
                        + e.getMessage());
            }
        } else {
            bestGid(ctx, pa);
        }
        Mtu active = pa.activeMtu();
        if (p.mtu == 0) {
            p.currMtu = active.value();
        } else {
            Mtu want = Mtu.ofBytes(p.mtu);
            if (want.value() > active.value()) {
                out.out("Requested mtu is higher than active mtu \nChanging to active mtu - " + active.value() + "\n");
                want = active;
            }
            p.currMtu = want.value();
        }
        DeviceAttr da = ctx.queryDevice();
        if (p.inlineSize < 0) {
            p.inlineSize = 0; // as perftest on a device it does not know (rdma_rxe): no inline by default
        } else if (p.inlineSize > da.maxInlineData()) {
            throw new PerftestException("inline size " + p.inlineSize + " is above the device maximum of "
                    + da.maxInlineData());
        }
        if (p.verb == Verb.READ || p.verb == Verb.ATOMIC) {
            int max = da.maxQpRdAtom();
            if (p.outReads > max) {
                System.err.println(" Number of outstanding reads is above max = " + max);
                System.err.println(" Changing to that max value");
                p.outReads = max;
            } else if (p.outReads <= 0) {
                p.outReads = max;
            }
        } else {
            p.outReads = 1;
        }
    }

    /** {@code get_best_gid_index}: an IPv4-mapped GID first, else the first non-zero one. */
    private void bestGid(Context ctx, PortAttr pa) {
        Gid chosen = null;
        int index = -1;
        for (int i = 0; i < pa.gidTblLen(); i++) {
            Gid g;
            try {
                g = ctx.queryGid(p.ibPort, i);
            } catch (VerbsException e) {
                continue;
            }
            if (g.isZero()) {
                continue;
            }
            if (chosen == null || (g.isIpv4Mapped() && !chosen.isIpv4Mapped())) {
                chosen = g;
                index = i;
            }
        }
        if (chosen == null) {
            throw new PerftestException("device " + ctx.device().name() + " port " + p.ibPort + " has no GID");
        }
        p.gidIndex = index;
        res.gid = chosen;
    }

    // ---------------------------------------------------------------- flows

    private void handShakeAll() {
        for (int q = 0; q < p.numQps; q++) {
            rem[q] = comm.handShake(my[q]);
        }
    }

    private void checkGidTypes() {
        if (my[0].gid().isIpv4Mapped() != rem[0].gid().isIpv4Mapped()) {
            throw new PerftestException("incompatible GID types (IPv4 on one side, IPv6 on the other): "
                    + "use the same IP version on both sides (-x)");
        }
    }

    private void printLocal() {
        if (p.full()) {
            for (int q = 0; q < p.numQps; q++) {
                out.out(Printer.address("local", my[q], printedVerb()));
            }
        }
    }

    /** The hand-shake that also prints the remote addresses. */
    private void handShakePrintRemote() {
        for (int q = 0; q < p.numQps; q++) {
            rem[q] = comm.handShake(my[q]);
            if (p.full()) {
                out.out(Printer.address("remote", rem[q], printedVerb()));
            }
        }
    }

    private void resultLine() {
        if (p.full()) {
            out.out(Printer.RESULT_LINE);
        }
    }

    /** {@code write_bw.c}, {@code read_bw.c}, {@code atomic_bw.c}. */
    private void rdmaBw() {
        handShakeAll();
        connectQps();
        printLocal();
        handShakePrintRemote();
        comm.handShake(my[0]); // "an additional handshake is required after moving qp to RTR"
        if (p.full()) {
            out.out(Printer.bwHeader(p.reportGbits));
        }
        if (p.machine == Params.Machine.SERVER) {
            comm.handShake(my[0]);
            BwReport client = comm.exchangeBwReport(new BwReport(0, 0, 0, 0, 0));
            out.out(Printer.bwRow(client, p.output, p.reportGbits));
            comm.closeConnection(my[0]);
            resultLine();
            return;
        }
        Runner run = new Runner(p, res);
        run.armEvents();
        BwReport last = new BwReport(p.size, 0, 0, 0, 0);
        if (p.method == Params.Method.ALL) {
            for (int i = 1; i < 24; i++) {
                p.size = 1L << i;
                last = bwOnce(run);
            }
        } else if (p.method == Params.Method.REGULAR) {
            last = bwOnce(run);
        } else {
            run.setSendWqes(rem);
            run.runIterBwInfinitely(out);
        }
        resultLine();
        comm.handShake(my[0]);
        comm.exchangeBwReport(last);
        comm.closeConnection(my[0]);
    }

    private BwReport bwOnce(Runner run) {
        run.setSendWqes(rem);
        if (p.performWarmUp) {
            run.warmUp();
        }
        run.allocBw();
        run.runIterBw();
        BwReport r = run.bwReport();
        out.out(Printer.bwRow(r, p.output, p.reportGbits));
        plotBw(r);
        return r;
    }

    /** {@code write_lat.c}: no close hand-shake at the end. */
    private void writeLat() {
        comm.handShake(my[0]);
        handShakeAll();
        connectQps();
        printLocal();
        handShakePrintRemote();
        comm.handShake(my[0]);
        Runner run = new Runner(p, res);
        run.setSendWqes(rem);
        if (p.full()) {
            out.out(Printer.latHeader(p.duration));
        }
        if (p.method == Params.Method.ALL) {
            for (int i = 1; i < 24; i++) {
                p.size = 1L << i;
                latOnce(run, run::runIterLatWrite);
            }
        } else {
            latOnce(run, run::runIterLatWrite);
        }
        resultLine();
    }

    private void latOnce(Runner run, Runnable loop) {
        run.allocLat();
        loop.run();
        out.out(run.latencyRow());
        if (plot != null) {
            if (p.duration) {
                plot.add(p.size, Double.NaN, run.durationTavg(), Double.NaN);
            } else {
                LatencyStats.Result r = run.latencyResult();
                plot.add(p.size, r.tTypical(), r.tAvg(), r.p99());
            }
        }
    }

    private void plotBw(BwReport r) {
        if (plot != null) {
            plot.add(r.size(), r.bwAvg(), r.bwPeak());
        }
    }

    /** {@code read_lat.c}, {@code atomic_lat.c}: only the client measures; the server waits in the close. */
    private void readAtomicLat() {
        comm.handShake(my[0]);
        handShakeAll();
        connectQps();
        printLocal();
        handShakePrintRemote();
        comm.handShake(my[0]);
        if (p.machine == Params.Machine.SERVER) {
            comm.closeConnection(my[0]);
            resultLine();
            return;
        }
        Runner run = new Runner(p, res);
        run.armEvents();
        if (p.full()) {
            out.out(Printer.latHeader(p.duration));
        }
        run.setSendWqes(rem);
        if (p.method == Params.Method.ALL) {
            for (int i = 1; i < 24; i++) {
                p.size = 1L << i;
                latOnce(run, run::runIterLat);
            }
        } else {
            latOnce(run, run::runIterLat);
        }
        comm.closeConnection(my[0]);
        resultLine();
    }

    private int sendMaxPow() {
        return p.connection == Params.Connection.UD ? Integer.numberOfTrailingZeros(p.mtuBytes()) + 1 : 24;
    }

    /** {@code send_bw.c}. */
    private void sendBw() {
        if (SendCredits.needed(p, res.ctx)) {
            credits = new SendCredits(p, res); // ctx_alloc_credit: advertised instead of the data buffer
            my = credits.advertise(my);
        }
        handShakeAll();
        if (credits != null) {
            credits.setWqes(rem);
        }
        connectQps();
        comm.handShake(my[0]);
        printLocal();
        handShakePrintRemote();
        Runner run = new Runner(p, res);
        run.credits(credits);
        run.armEvents();
        if (p.full()) {
            out.out(Printer.bwHeader(p.reportGbits));
        }
        boolean client = p.machine == Params.Machine.CLIENT;
        if (p.method == Params.Method.ALL) {
            for (int i = 1; i < sendMaxPow(); i++) {
                p.size = 1L << i;
                sendBwOnce(run, client);
                comm.handShake(my[0]);
            }
        } else if (p.method == Params.Method.REGULAR) {
            sendBwOnce(run, client);
        } else {
            if (client) {
                run.setSendWqes(rem);
            } else {
                run.setRecvWqes();
            }
            comm.handShake(my[0]);
            if (client) {
                run.runIterBwInfinitely(out);
            } else {
                run.runIterBwInfinitelyServer();
            }
        }
        resultLine();
        comm.closeConnection(my[0]);
    }

    private void sendBwOnce(Runner run, boolean client) {
        if (client) {
            run.setSendWqes(rem);
        } else {
            run.setRecvWqes();
        }
        comm.handShake(my[0]);
        run.allocBw();
        if (client) {
            run.runIterBw();
        } else {
            run.runIterBwServer();
        }
        BwReport r = run.bwReport();
        out.out(Printer.bwRow(r, p.output, p.reportGbits));
        plotBw(r);
    }

    /** {@code send_lat.c}. */
    private void sendLat() {
        handShakeAll();
        connectQps();
        comm.handShake(my[0]);
        printLocal();
        handShakePrintRemote();
        Runner run = new Runner(p, res);
        run.armEvents();
        if (p.full()) {
            out.out(Printer.latHeader(p.duration));
        }
        run.setSendWqes(rem);
        if (p.method == Params.Method.ALL) {
            for (int i = 1; i < sendMaxPow(); i++) {
                p.size = 1L << i;
                run.setRecvWqes();
                comm.handShake(my[0]);
                latOnce(run, run::runIterLatSend);
            }
        } else {
            run.setRecvWqes();
            comm.handShake(my[0]);
            latOnce(run, run::runIterLatSend);
        }
        resultLine();
        comm.closeConnection(my[0]);
    }
}
