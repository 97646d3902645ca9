package org.jrdma.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
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
 * {@code jrdma rc_pingpong}: rdma-core's {@code ibv_rc_pingpong} (libibverbs/examples/rc_pingpong.c)
 * over jrdma, peer-compatible with it: the same TCP exchange (port 18515; the client writes its
 * {@link PingpongDest} message, the server connects its QP and answers with its own, the client writes
 * "done"), the same RC SEND/RECV ping-pong (one buffer of {@code -s} bytes; the client sends first,
 * each side sends again once its previous send and the next receive have completed) and the same
 * output lines on stdout.
 *
 * <p>Differences: without {@code -g}, on an Ethernet port, the GID index perftest would choose (an
 * IPv4-mapped GID first) is used instead of no GID (RoCE needs one; {@code ibv_rc_pingpong} then fails
 * to connect). {@code -o} (ODP), {@code -P} (prefetch), {@code -t} (completion timestamps) and
 * {@code -j} (device memory) are refused with a one-line error; {@code -N} (the new post-send API)
 * is accepted and changes nothing, since jrdma has one post-send path.
 */
@Command(name = "rc_pingpong", sortOptions = false, usageHelpAutoWidth = true,
        description = "RC SEND/RECV ping-pong, compatible with rdma-core's ibv_rc_pingpong "
                + "(server without SERVER, client with it).")
public final class RcPingpong implements Callable<Integer> {
    /** Milliseconds the client waits for the TCP connection. */
    static final int CONNECT_TIMEOUT_MS = 20_000;
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

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", description = "size of message to exchange (default 4096)")
    long size = 4096;

    @Option(names = {"-m", "--mtu"}, paramLabel = "SIZE", description = "path MTU: 256, 512, 1024, 2048, 4096 (default 1024)")
    int mtu = 1024;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEP", description = "number of receives to post at a time (default 500)")
    int rxDepth = 500;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", description = "number of exchanges (default 1000)")
    long iters = 1000;

    @Option(names = {"-l", "--sl"}, paramLabel = "SL", description = "service level value (default 0)")
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

    @Option(names = {"-N", "--new_send"}, description = "use the new post-send API (accepted; jrdma has one)")
    boolean newSend;

    @Option(names = {"-o", "--odp"}, hidden = true)
    boolean odp;

    @Option(names = {"-O", "--iodp"}, hidden = true)
    boolean iodp;

    @Option(names = {"-P", "--prefetch"}, hidden = true)
    boolean prefetch;

    @Option(names = {"-t", "--ts"}, hidden = true)
    boolean ts;

    @Option(names = {"-j", "--dm"}, hidden = true)
    boolean dm;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "write the device counters to FILE while running and at exit (see 'jrdma stat')")
    String statsFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    public RcPingpong(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        CommandLine cl = Tools.configure(new CommandLine(new RcPingpong(System.out)), System.out, System.err);
        System.exit(cl.execute(args));
    }

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    private void checkOptions() {
        if (odp || iodp || prefetch) {
            throw bad("on-demand paging (-o/-O/-P) is not supported by jrdma: its memory is always registered");
        }
        if (ts) {
            throw bad("completion timestamps (-t) are not supported by jrdma");
        }
        if (dm) {
            throw bad("device memory (-j) is not supported by jrdma");
        }
        if (port < 1 || port > 65535) {
            throw bad("-p/--port must be between 1 and 65535 (got " + port + ")");
        }
        if (ibPort < 1) {
            throw bad("-i/--ib-port must be 1 or more (got " + ibPort + ")");
        }
        if (size < 1 || size > Integer.MAX_VALUE) {
            throw bad("-s/--size must be between 1 and 2147483647 bytes (got " + size + ")");
        }
        if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw bad("invalid MTU " + mtu + " for -m/--mtu (choose from 256, 512, 1024, 2048, 4096)");
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
        try (Arena arena = Arena.ofShared(); StatsFile stats = StatsFile.start(ctx, "rc_pingpong", statsFile)) {
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
        MemorySegment buf = arena.allocate(bytes, PAGE_SIZE);
        buf.fill((byte) 0x7b);
        PortAttr pa;
        ProtectionDomain pd;
        MemoryRegion mr;
        CompletionChannel channel = null;
        CompletionQueue cq;
        QueuePair qp;
        try {
            pa = ctx.queryPort(ibPort);
            if (events) {
                channel = ctx.createCompChannel();
            }
            pd = ctx.allocPd();
            mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE);
            cq = ctx.createCq(rxDepth + 1, channel);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(1).maxRecvWr(rxDepth).maxSendSge(1).maxRecvSge(1);
            qp = pd.createQp(ia);
            QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(ibPort).qpAccessFlags(0);
            qp.modify(init, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        } catch (VerbsException e) {
            throw new PerftestException("couldn't create the RDMA resources on " + ctx.device().name() + ": "
                    + e.getMessage());
        }
        Sge sge = new Sge(buf.address(), bytes, mr.lkey());
        RecvWr rwr = new RecvWr().wrId(PingpongLoop.RECV_WRID).sgList(sge);
        SendWr swr = new SendWr().wrId(PingpongLoop.SEND_WRID).opcode(WrOpcode.SEND).sgList(sge).sendFlags(SendFlags.SIGNALED);
        int routs = PingpongLoop.postRecv(qp, rwr, rxDepth);
        if (routs < rxDepth) {
            throw new PerftestException("couldn't post receive (" + routs + ")");
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
                throw new PerftestException("can't read sgid of index " + gidIndex + ": " + e.getMessage());
            }
        } else if (pa.linkLayer() == LinkLayer.ETHERNET) {
            gidIndex = bestGidIndex(ctx, ibPort, pa.gidTblLen());
            gid = ctx.queryGid(ibPort, gidIndex);
        } else {
            gidIndex = 0;
            gid = Gid.ZERO;
        }
        PingpongDest my = new PingpongDest(pa.lid(), qp.qpNum(), ThreadLocalRandom.current().nextInt() & 0xffffff, gid);
        out.print(my.line(true));
        out.flush();
        Params warm = new Params();
        warm.verb = Verb.SEND;
        warm.size = size;
        warm.ibPort = ibPort;
        warm.gidIndex = gidIndex;
        warm.currMtu = Mtu.ofBytes(mtu).value();
        warm.inlineSize = 0;
        warm.jitWarmUpMillis = jitWarmUpMillis;
        PingpongDest rem;
        if (server != null) {
            JitWarmUp.run(ctx, warm, gid);
            rem = clientExchange(server, port, my);
        } else {
            rem = serverExchange(port, my, r -> connect(qp, my, r, gidIndex), () -> JitWarmUp.run(ctx, warm, gid));
        }
        out.print(rem.line(false));
        out.flush();
        if (server != null) {
            connect(qp, my, rem, gidIndex);
        }
        if (server != null && chk) {
            for (long i = 0; i < bytes; i += PAGE_SIZE) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) 0); // (i / page_size) % sizeof(char), as rc_pingpong
            }
        }
        long micros = PingpongLoop.run(qp, cq, channel, rwr, swr, rxDepth, routs, iters, server != null);
        out.print(result(size * iters * 2, micros, iters));
        if (server == null && chk) {
            for (long i = 0; i < bytes; i += PAGE_SIZE) {
                if (buf.get(ValueLayout.JAVA_BYTE, i) != 0) {
                    out.println("invalid data in page " + i / PAGE_SIZE);
                }
            }
        }
        out.flush();
        return 0;
    }

    /**
     * The two result lines, as rc_pingpong computes them: {@code usec} is a C {@code float} of the
     * elapsed microseconds, {@code bytes = size * iters * 2}.
     *
     * @param bytes  bytes moved in both directions
     * @param micros elapsed time in µs (gettimeofday's resolution)
     * @param iters  iterations
     */
    static String result(long bytes, long micros, long iters) {
        float usec = micros;
        return bytes + " bytes in " + c2(usec / 1000000.) + " seconds = " + c2(bytes * 8. / usec) + " Mbit/sec\n"
                + iters + " iters in " + c2(usec / 1000000.) + " seconds = " + c2(usec / (float) iters) + " usec/iter\n";
    }

    /** C's {@code %.2f}, with glibc's "inf"/"nan" for the values a zero elapsed time gives. */
    static String c2(double v) {
        if (Double.isNaN(v)) {
            return "-nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        return CFormat.f("%.2f", v);
    }

    static int bestGidIndex(Context ctx, int port, int len) {
        int best = -1;
        boolean bestV4 = false;
        for (int i = 0; i < len; i++) {
            Gid g;
            try {
                g = ctx.queryGid(port, i);
            } catch (VerbsException e) {
                continue;
            }
            if (g.isZero()) {
                continue;
            }
            if (best < 0 || (g.isIpv4Mapped() && !bestV4)) {
                best = i;
                bestV4 = g.isIpv4Mapped();
            }
        }
        if (best < 0) {
            throw new PerftestException("device " + ctx.device().name() + " port " + port + " has no GID");
        }
        return best;
    }

    /** {@code pp_connect_ctx}: RTR then RTS with rc_pingpong's attributes. */
    private void connect(QueuePair qp, PingpongDest my, PingpongDest rem, int gidIndex) {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.ofBytes(mtu)).destQpNum(rem.qpn())
                .rqPsn(rem.psn()).maxDestRdAtomic(1).minRnrTimer(12);
        AhAttr av = a.ahAttr();
        av.isGlobal(false).dlid(rem.lid()).sl(sl).srcPathBits(0).portNum(ibPort);
        if (interfaceId(rem.gid()) != 0) {
            av.isGlobal(true);
            av.grh().hopLimit(1).dgid(rem.gid()).sgidIndex(gidIndex);
        }
        try {
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                    | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to modify QP to RTR: " + e.getMessage());
        }
        QpAttr r = new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(my.psn())
                .maxRdAtomic(1);
        try {
            qp.modify(r, QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                    | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to modify QP to RTS: " + e.getMessage());
        }
    }

    /** {@code gid.global.interface_id}: the low 64 bits of the GID. */
    static long interfaceId(Gid gid) {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | gid.byteAt(i);
        }
        return v;
    }

    // ---------------------------------------------------------------- the TCP exchange

    /** What the server does between reading the client's address and answering: connect its QP. */
    @FunctionalInterface
    interface OnRemote {
        void accept(PingpongDest remote);
    }

    /** {@code pp_client_exch_dest}: connect, write ours, read theirs, write "done", close. */
    static PingpongDest clientExchange(String host, int port, PingpongDest my) {
        InetAddress addr;
        try {
            addr = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new PerftestException("cannot resolve server address '" + host + "'");
        }
        try (Socket s = new Socket()) {
            try {
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(addr, port), CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                throw new PerftestException("Couldn't connect to " + host + ":" + port + ": " + OobChannel.reason(e));
            }
            return clientExchange(s.getInputStream(), s.getOutputStream(), my);
        } catch (IOException e) {
            throw new PerftestException("Couldn't read/write remote address: " + OobChannel.reason(e));
        }
    }

    /** The client's side of the exchange over given streams (tests replay captured bytes). */
    static PingpongDest clientExchange(InputStream in, OutputStream o, PingpongDest my) throws IOException {
        o.write(my.encode());
        o.flush();
        byte[] msg = new byte[PingpongDest.MSG_SIZE];
        readFully(in, msg);
        PingpongDest rem = PingpongDest.decode(msg);
        o.write("done\0".getBytes(StandardCharsets.US_ASCII));
        o.flush();
        return rem;
    }

    /** {@code pp_server_exch_dest}: listen (any address, SO_REUSEADDR, backlog 1), accept one client. */
    static PingpongDest serverExchange(int port, PingpongDest my, OnRemote onRemote) {
        return serverExchange(port, my, onRemote, () -> { });
    }

    /** As {@link #serverExchange(int, PingpongDest, OnRemote)}, running {@code whileListening} before it accepts. */
    static PingpongDest serverExchange(int port, PingpongDest my, OnRemote onRemote, Runnable whileListening) {
        ServerSocket ss;
        try {
            ss = new ServerSocket();
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port), 1);
        } catch (IOException e) {
            throw new PerftestException("Couldn't listen to port " + port + ": " + OobChannel.reason(e));
        }
        Socket s;
        try (ss) {
            whileListening.run();
            s = ss.accept();
        } catch (IOException e) {
            throw new PerftestException("accept() failed: " + OobChannel.reason(e));
        }
        try (s) {
            s.setTcpNoDelay(true);
            return serverExchange(s.getInputStream(), s.getOutputStream(), my, onRemote);
        } catch (IOException e) {
            throw new PerftestException("Couldn't send/recv local address: " + OobChannel.reason(e));
        }
    }

    /**
     * The server's side over given streams: read the client's address, {@code onRemote} (connect the
     * QP, so that the client's first SEND finds it ready), write ours, read "done".
     */
    static PingpongDest serverExchange(InputStream in, OutputStream o, PingpongDest my, OnRemote onRemote)
            throws IOException {
        byte[] msg = new byte[PingpongDest.MSG_SIZE];
        readFully(in, msg);
        PingpongDest rem = PingpongDest.decode(msg);
        onRemote.accept(rem);
        o.write(my.encode());
        o.flush();
        byte[] done = new byte[5];
        int n = 0;
        while (n < done.length) {
            int r = in.read(done, n, done.length - n);
            if (r < 0) {
                break;
            }
            n += r;
        }
        if (n == 0) {
            throw new EOFException("the client closed the connection before \"done\"");
        }
        return rem;
    }

    private static void readFully(InputStream in, byte[] b) throws IOException {
        int n = 0;
        while (n < b.length) {
            int r = in.read(b, n, b.length - n);
            if (r < 0) {
                throw new EOFException("peer closed the connection after " + n + " of " + b.length + " bytes");
            }
            n += r;
        }
    }
}
