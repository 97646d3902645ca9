package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WrOpcode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma ud_pingpong}: rdma-core's {@code ibv_ud_pingpong} (libibverbs/examples/ud_pingpong.c)
 * over jrdma, peer-compatible with it: the TCP exchange of {@link RcPingpong} (port 18515, the same
 * 52-byte messages and "done"), a UD QP with Q_Key 0x11111111, an address handle towards the peer
 * (a GRH with hop limit 1 when the peer's GID has an interface id), and the ping-pong loop of
 * {@link PingpongLoop} with one buffer of {@code -s} + 40 bytes: receives take it whole (the 40-byte
 * GRH area first), sends take its last {@code -s} bytes. The output lines are ud_pingpong's (its
 * local address line says {@code ": GID"}). Options: {@code -p -d -i -s -r -n -l -e -g -c}, and
 * jrdma's {@code --jit_warm_up} and {@code --stats-file}.
 *
 * <p>Differences: without {@code -g}, on an Ethernet port, the best GID (IPv4 first) is used, as
 * {@code jrdma rc_pingpong} does, instead of none; Linux's ud_pingpong sends inline when the QP
 * allows it, jrdma from the registered buffer: the packets are the same. Runs in the calling thread.
 */
@Command(name = "ud_pingpong", sortOptions = false, usageHelpAutoWidth = true,
        description = "UD SEND/RECV ping-pong, compatible with rdma-core's ibv_ud_pingpong "
                + "(server without SERVER, client with it).")
public final class UdPingpong implements Callable<Integer> {
    /** The Q_Key both sides use ({@code 0x11111111} in ud_pingpong.c). */
    static final int QKEY = 0x11111111;
    /** The GRH area in front of every UD receive, bytes. */
    static final int GRH = 40;
    private static final int PAGE_SIZE = 4096;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server's address (client mode)")
    String server;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "listen on/connect to TCP port PORT (default 18515)")
    int port = 18515;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "use RDMA device DEV (default: the first that opens)")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "use port PORT of the device (default 1)")
    int ibPort = 1;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", description = "size of message to exchange (default 2048; at most the port's active MTU)")
    long size = 2048;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEP", description = "number of receives to post at a time (default 500)")
    int rxDepth = 500;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", description = "number of exchanges (default 1000)")
    long iters = 1000;

    @Option(names = {"-l", "--sl"}, paramLabel = "SL", description = "send messages with service level SL (default 0)")
    int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    boolean events;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "IDX", description = "local port GID index (default: the best GID, IPv4 first)")
    Integer gidIdx;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer")
    boolean chk;

    @Option(names = "--jit_warm_up", paramLabel = "MS", defaultValue = "" + JitWarmUp.DEFAULT_MILLIS,
            description = "jrdma: before the exchange, warm up the JIT over a QP looped back on this device"
                    + " until it compiles nothing new, at most MS ms (default ${DEFAULT-VALUE}; 0 = off)")
    int jitWarmUpMillis;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "write the device counters to FILE while running and at exit (see 'jrdma stat')")
    String statsFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    public UdPingpong(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        CommandLine cl = Tools.configure(new CommandLine(new UdPingpong(System.out)), System.out, System.err);
        System.exit(cl.execute(args));
    }

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    private void checkOptions() {
        if (port < 1 || port > 65535) {
            throw bad("-p/--port must be between 1 and 65535 (got " + port + ")");
        }
        if (ibPort < 1) {
            throw bad("-i/--ib-port must be 1 or more (got " + ibPort + ")");
        }
        if (size < 1 || size > 4096) {
            throw bad("-s/--size must be between 1 and 4096 bytes, a UD message fits one packet (got " + size + ")");
        }
        if (rxDepth < 1 || rxDepth > 16384) {
            throw bad("-r/--rx-depth must be between 1 and 16384 (got " + rxDepth + ")");
        }
        if (iters < 1 || iters > 0xffffffffL) {
            throw bad("-n/--iters must be between 1 and 4294967295 (got " + iters + ")");
        }
        if (sl < 0 || sl > 15) {
            throw bad("-l/--sl must be between 0 and 15 (got " + sl + ")");
        }
        if (gidIdx != null && gidIdx < 0) {
            throw bad("-g/--gid-idx must be 0 or more (got " + gidIdx + ")");
        }
    }

    @Override
    public Integer call() {
        checkOptions();
        Params dev = new Params();
        dev.ibDev = ibDev;
        Context ctx = Perftest.openDevice(dev);
        try (Arena arena = Arena.ofShared(); StatsFile stats = StatsFile.start(ctx, "ud_pingpong", statsFile)) {
            return run(ctx, arena);
        } finally {
            try {
                ctx.close();
            } catch (RuntimeException ignored) {
                // best effort at exit
            }
        }
    }

    private int run(Context ctx, Arena arena) {
        int bytes = (int) size;
        PortAttr pa;
        try {
            pa = ctx.queryPort(ibPort);
        } catch (VerbsException e) {
            throw new PerftestException("Couldn't get port info: " + e.getMessage());
        }
        if (bytes > pa.activeMtu().bytes()) {
            throw new PerftestException("Requested size larger than port MTU (" + pa.activeMtu().bytes() + ")");
        }
        MemorySegment buf = arena.allocate(bytes + GRH, PAGE_SIZE);
        // ud_pingpong.c: the receiver's bytes start out 0x7b; -c makes the client send (i / page) % 1 = 0
        buf.fill((byte) 0x7b);
        ProtectionDomain pd;
        MemoryRegion mr;
        CompletionChannel channel = null;
        CompletionQueue cq;
        QueuePair qp;
        try {
            if (events) {
                channel = ctx.createCompChannel();
            }
            pd = ctx.allocPd();
            mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE);
            cq = ctx.createCq(rxDepth + 1, channel);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.UD);
            ia.cap().maxSendWr(1).maxRecvWr(rxDepth).maxSendSge(1).maxRecvSge(1);
            qp = pd.createQp(ia);
            QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(ibPort).qkey(QKEY);
            qp.modify(init, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        } catch (VerbsException e) {
            throw new PerftestException("couldn't create the RDMA resources on " + ctx.device().name() + ": "
                    + e.getMessage());
        }
        RecvWr rwr = new RecvWr().wrId(PingpongLoop.RECV_WRID).sgList(new Sge(buf.address(), bytes + GRH, mr.lkey()));
        SendWr swr = new SendWr().wrId(PingpongLoop.SEND_WRID).opcode(WrOpcode.SEND)
                .sgList(new Sge(buf.address() + GRH, bytes, mr.lkey())).sendFlags(SendFlags.SIGNALED);
        int routs = PingpongLoop.postRecv(qp, rwr, rxDepth);
        if (routs < rxDepth) {
            throw new PerftestException("Couldn't post receive (" + routs + ")");
        }
        if (events) {
            cq.reqNotify(false);
        }
        int gidIndex;
        Gid gid;
        if (gidIdx != null) {
            gidIndex = gidIdx;
            try {
                gid = ctx.queryGid(ibPort, gidIndex);
            } catch (VerbsException e) {
                throw new PerftestException("Could not get local gid for gid index " + gidIndex + ": " + e.getMessage());
            }
        } else if (pa.linkLayer() == LinkLayer.ETHERNET) {
            gidIndex = RcPingpong.bestGidIndex(ctx, ibPort, pa.gidTblLen());
            gid = ctx.queryGid(ibPort, gidIndex);
        } else {
            gidIndex = 0;
            gid = Gid.ZERO;
        }
        PingpongDest my = new PingpongDest(pa.lid(), qp.qpNum(), ThreadLocalRandom.current().nextInt() & 0xffffff, gid);
        out.print(my.line(true, ": GID "));
        out.flush();
        Params warm = new Params();
        warm.verb = Verb.SEND;
        warm.connection = Params.Connection.UD;
        warm.size = size;
        warm.ibPort = ibPort;
        warm.gidIndex = gidIndex;
        warm.currMtu = pa.activeMtu().value();
        warm.inlineSize = 0;
        warm.jitWarmUpMillis = jitWarmUpMillis;
        PingpongDest rem;
        AddressHandle[] ah = new AddressHandle[1];
        if (server != null) {
            JitWarmUp.run(ctx, warm, gid);
            rem = RcPingpong.clientExchange(server, port, my);
        } else {
            rem = RcPingpong.serverExchange(port, my, r -> ah[0] = connect(pd, qp, my, r, gidIndex),
                    () -> JitWarmUp.run(ctx, warm, gid));
        }
        out.print(rem.line(false));
        out.flush();
        if (server != null) {
            ah[0] = connect(pd, qp, my, rem, gidIndex);
        }
        swr.ud(ah[0], rem.qpn(), QKEY);
        if (server != null && chk) {
            for (long i = 0; i < bytes; i += PAGE_SIZE) {
                buf.set(ValueLayout.JAVA_BYTE, GRH + i, (byte) 0); // (i / page_size) % sizeof(char), as ud_pingpong
            }
        }
        long micros = PingpongLoop.run(qp, cq, channel, rwr, swr, rxDepth, routs, iters, server != null);
        out.print(RcPingpong.result(size * iters * 2, micros, iters));
        if (server == null && chk) {
            for (long i = 0; i < bytes; i += PAGE_SIZE) {
                if (buf.get(ValueLayout.JAVA_BYTE, GRH + i) != 0) {
                    out.println("invalid data in page " + i / PAGE_SIZE);
                }
            }
        }
        out.flush();
        return 0;
    }

    /** {@code pp_connect_ctx}: RTR, RTS with our PSN, and the address handle towards the peer. */
    private AddressHandle connect(ProtectionDomain pd, QueuePair qp, PingpongDest my, PingpongDest rem, int gidIndex) {
        try {
            qp.modify(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to modify QP to RTR: " + e.getMessage());
        }
        try {
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(my.psn()), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to modify QP to RTS: " + e.getMessage());
        }
        AhAttr av = new AhAttr().isGlobal(false).dlid(rem.lid()).sl(sl).srcPathBits(0).portNum(ibPort);
        if (RcPingpong.interfaceId(rem.gid()) != 0) {
            av.isGlobal(true);
            av.grh().hopLimit(1).dgid(rem.gid()).sgidIndex(gidIndex);
        }
        try {
            return pd.createAh(av);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to create AH: " + e.getMessage());
        }
    }
}
