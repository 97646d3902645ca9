package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
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
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma imm_pingpong}: RC SEND_WITH_IMM and RDMA_WRITE_WITH_IMM between two processes, each
 * immediate value, opcode, length and payload checked by the receiver (what the lab's
 * {@code lab-imm.c} does between two Linux guests, since no perftest tool sends immediates). The
 * out-of-band exchange is perftest's ({@link OobChannel}: versions, then one {@link Dest} each way
 * carrying QPN, PSN, rkey and the address of the receive buffer, then barriers).
 *
 * <p>Iteration i is a round trip: the client sends message 2i, the server answers with message 2i+1.
 * Even iterations use SEND_WITH_IMM, odd ones RDMA_WRITE_WITH_IMM (into the peer's receive buffer;
 * it consumes a receive WQE and completes as RECV_RDMA_WITH_IMM). Message k carries immediate
 * {@link #imm(int, boolean)} and payload bytes {@code (j + k) & 0xff}.
 *
 * <p>With {@code -R} it connects through the CM instead and speaks the lab's {@code lab-imm}
 * ({@link ImmOverCm}), so that it meets that Linux program in either role.
 */
@Command(name = "imm_pingpong", sortOptions = false, usageHelpAutoWidth = true,
        description = "RC SEND_WITH_IMM / RDMA_WRITE_WITH_IMM ping-pong with the immediates checked "
                + "(server without SERVER, client with it).")
public final class ImmPingpong implements Callable<Integer> {
    /** wr_id of receives. */
    static final int RECV_WRID = 1;
    /** wr_id of sends. */
    static final int SEND_WRID = 2;
    private static final int RX_DEPTH = 2;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server's address (client mode)")
    String server;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "RDMA device (default: the first that opens)")
    String ibDev;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "IDX", description = "GID index (default: the best GID, IPv4 first)")
    Integer gidIndex;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT",
            description = "TCP port of the exchange (default 18515), or with -R the CM's port (default 7471, lab-imm's)")
    Integer port;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect through the CM and run the lab's lab-imm sequence"
            + " (SEND_WITH_IMM and RDMA_WRITE_WITH_IMM of 64 and 3000 B, then \"bye!\"), peer-compatible with lab-imm")
    boolean rdmaCm;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", description = "message size, bytes (default 64)")
    int size = 64;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "round trips (default 100; even ones SEND_WITH_IMM, odd ones RDMA_WRITE_WITH_IMM)")
    long iters = 100;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "path MTU: 256 .. 4096 (default: the port's active MTU)")
    Integer mtu;

    @Option(names = {"-v", "--verbose"}, description = "print every receive completion (with -R: also when the server listens)")
    boolean verbose;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "write the device counters to FILE while running and at exit (see 'jrdma stat')")
    String statsFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    public ImmPingpong(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Tools.configure(new CommandLine(new ImmPingpong(System.out)), System.out, System.err).execute(args));
    }

    /**
     * The immediate value of message {@code k}: 0x11 (SEND_WITH_IMM) or 0x33 (RDMA_WRITE_WITH_IMM) in
     * the top byte, as lab-imm's 0x11111111 and 0x33333333, and k in the low 24 bits.
     */
    static int imm(int k, boolean write) {
        return (write ? 0x33000000 : 0x11000000) | (k & 0xffffff);
    }

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    @Override
    public Integer call() {
        if (rdmaCm) {
            for (String o : new String[] {"-s", "-n", "-m", "-x"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
                    throw bad(o + " is not used with -R (lab-imm's sequence has fixed sizes and the CM picks the path)");
                }
            }
            int cmPort = port == null ? ImmOverCm.PORT : port;
            if (cmPort < 1 || cmPort > 65535) {
                throw bad("-p/--port must be between 1 and 65535 (got " + cmPort + ")");
            }
            ImmOverCm run = new ImmOverCm(out, ibDev, cmPort, verbose);
            return server == null ? run.server() : run.client(server);
        }
        int port = this.port == null ? Params.DEF_PORT : this.port;
        if (size < 1 || size > 1 << 24) {
            throw bad("-s/--size must be between 1 and 16777216 bytes (got " + size + ")");
        }
        if (iters < 1 || iters > 1 << 23) {
            throw bad("-n/--iters must be between 1 and 8388608 (got " + iters + ")");
        }
        if (port < 1 || port > 65535) {
            throw bad("-p/--port must be between 1 and 65535 (got " + port + ")");
        }
        if (mtu != null && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw bad("invalid MTU " + mtu + " for -m/--mtu (choose from 256, 512, 1024, 2048, 4096)");
        }
        Params dev = new Params();
        dev.ibDev = ibDev;
        Context ctx = Perftest.openDevice(dev);
        OobChannel comm = null;
        try (Arena arena = Arena.ofShared(); StatsFile stats = StatsFile.start(ctx, "imm_pingpong", statsFile)) {
            PortAttr pa = ctx.queryPort(1);
            int gidx = gidIndex != null ? gidIndex : RcPingpong.bestGidIndex(ctx, 1, pa.gidTblLen());
            Gid gid;
            try {
                gid = ctx.queryGid(1, gidx);
            } catch (VerbsException e) {
                throw new PerftestException("cannot read GID index " + gidx + ": " + e.getMessage());
            }
            Mtu pathMtu = pa.activeMtu();
            if (mtu != null && Mtu.ofBytes(mtu).value() < pathMtu.value()) {
                pathMtu = Mtu.ofBytes(mtu);
            }
            long slot = Resources.roundUp(size, 64);
            MemorySegment buf = arena.allocate(2 * slot, 4096);
            MemorySegment send = buf.asSlice(0, size);
            MemorySegment recv = buf.asSlice(slot, size);
            ProtectionDomain pd = ctx.allocPd();
            MemoryRegion mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            CompletionQueue scq = ctx.createCq(4, null);
            CompletionQueue rcq = ctx.createCq(RX_DEPTH + 1, null);
            QpInitAttr ia = new QpInitAttr().sendCq(scq).recvCq(rcq).qpType(QpType.RC);
            ia.cap().maxSendWr(2).maxRecvWr(RX_DEPTH).maxSendSge(1).maxRecvSge(1);
            QueuePair qp = pd.createQp(ia);
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(AccessFlags.REMOTE_WRITE),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            RecvWr rwr = new RecvWr().wrId(RECV_WRID).sgList(new Sge(recv.address(), size, mr.lkey()));
            for (int i = 0; i < RX_DEPTH; i++) {
                qp.postRecv(rwr);
            }
            Dest my = new Dest(pa.lid(), 1, qp.qpNum(), ThreadLocalRandom.current().nextInt() & 0xffffff, mr.rkey(),
                    recv.address(), gid, 0);
            if (server == null) {
                ServerSocket ss = OobChannel.listen(port);
                comm = OobChannel.accept(ss);
            } else {
                comm = OobChannel.connect(server, port, Perftest.CONNECT_TIMEOUT_MS);
            }
            comm.exchangeVersions(OobChannel.VERSION);
            Dest rem = comm.handShake(my);
            if (my.gid().isIpv4Mapped() != rem.gid().isIpv4Mapped()) {
                throw new PerftestException("incompatible GID types (IPv4 on one side, IPv6 on the other): "
                        + "use the same IP version on both sides (-x)");
            }
            connect(qp, my, rem, gidx, pathMtu);
            out.print(Printer.address("local", my, Verb.WRITE));
            out.print(Printer.address("remote", rem, Verb.WRITE));
            out.flush();
            comm.handShake(my); // both QPs are in RTS with receives posted
            SendWr swr = new SendWr().wrId(SEND_WRID).sgList(new Sge(send.address(), size, mr.lkey()))
                    .sendFlags(SendFlags.SIGNALED);
            WorkCompletion wc = new WorkCompletion();
            boolean client = server != null;
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                boolean write = (i & 1) == 1;
                int kOut = client ? 2 * i : 2 * i + 1;
                int kIn = client ? 2 * i + 1 : 2 * i;
                if (!client) {
                    receive(qp, rcq, rwr, recv, wc, kIn, write);
                }
                fill(send, kOut);
                swr.opcode(write ? WrOpcode.RDMA_WRITE_WITH_IMM : WrOpcode.SEND_WITH_IMM).immData(imm(kOut, write));
                if (write) {
                    swr.rdma(rem.vaddr(), rem.rkey());
                }
                qp.postSend(swr);
                awaitSend(scq, wc, kOut);
                if (client) {
                    receive(qp, rcq, rwr, recv, wc, kIn, write);
                }
            }
            long micros = (System.nanoTime() - t0) / 1000;
            long sendImm = (iters + 1) / 2;
            long writeImm = iters / 2;
            out.print(CFormat.f("SEND_WITH_IMM       %d B: %d sent, %d received, immediates, opcodes, lengths and data checked\n",
                    size, sendImm, sendImm));
            out.print(CFormat.f("RDMA_WRITE_WITH_IMM %d B: %d sent, %d received, immediates, opcodes, lengths and data checked\n",
                    size, writeImm, writeImm));
            out.print(CFormat.f("%d iters in %.2f seconds = %.2f usec/iter\n", iters, micros / 1e6,
                    micros / (double) iters));
            out.flush();
            comm.closeConnection(my);
            comm = null;
            return 0;
        } catch (VerbsException e) {
            throw new PerftestException(e.getMessage());
        } finally {
            if (comm != null) {
                comm.close();
            }
            try {
                ctx.close();
            } catch (RuntimeException ignored) {
                // best effort at exit
            }
        }
    }

    private static void fill(MemorySegment s, int k) {
        for (long j = 0; j < s.byteSize(); j++) {
            s.set(ValueLayout.JAVA_BYTE, j, (byte) (j + k));
        }
    }

    private static void awaitSend(CompletionQueue scq, WorkCompletion wc, int k) {
        WorkCompletion[] one = {wc};
        for (int idle = 0; scq.poll(one, 1) == 0; idle++) {
            Spin.idle(idle);
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new PerftestException("message " + k + ": send completed with " + wc.status().str() + " (status "
                    + wc.status().value() + ")");
        }
    }

    /** Waits for message {@code k}, checks its completion and payload, clears the buffer, re-posts. */
    private void receive(QueuePair qp, CompletionQueue rcq, RecvWr rwr, MemorySegment recv, WorkCompletion wc, int k,
                         boolean write) {
        WorkCompletion[] one = {wc};
        for (int idle = 0; rcq.poll(one, 1) == 0; idle++) {
            Spin.idle(idle);
        }
        String what = "message " + k + " (" + (write ? "RDMA_WRITE_WITH_IMM" : "SEND_WITH_IMM") + ")";
        if (wc.status() != WcStatus.SUCCESS) {
            throw new PerftestException(what + ": receive completed with " + wc.status().str() + " (status "
                    + wc.status().value() + ")");
        }
        WcOpcode expectOp = write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        boolean dataOk = true;
        for (long j = 0; j < recv.byteSize() && dataOk; j++) {
            dataOk = recv.get(ValueLayout.JAVA_BYTE, j) == (byte) (j + k);
        }
        if (verbose) {
            out.print(CFormat.f("recv: opcode=%s byte_len=%d imm=%s0x%08x data=%s\n", wc.opcode(), wc.byteLen(),
                    (wc.wcFlags() & WcFlags.WITH_IMM) != 0 ? "" : "(none) ", wc.immData(), dataOk ? "ok" : "MISMATCH"));
        }
        if (wc.opcode() != expectOp) {
            throw new PerftestException(what + ": completion opcode " + wc.opcode() + ", expected " + expectOp);
        }
        if ((wc.wcFlags() & WcFlags.WITH_IMM) == 0) {
            throw new PerftestException(what + ": completion without IBV_WC_WITH_IMM");
        }
        if (wc.immData() != imm(k, write)) {
            throw new PerftestException(what + ": immediate 0x" + CFormat.hex(wc.immData() & 0xffffffffL, 8)
                    + ", expected 0x" + CFormat.hex(imm(k, write) & 0xffffffffL, 8));
        }
        if (wc.byteLen() != recv.byteSize()) {
            throw new PerftestException(what + ": byte_len " + wc.byteLen() + ", expected " + recv.byteSize());
        }
        if (!dataOk) {
            throw new PerftestException(what + ": payload differs from what the peer sent");
        }
        recv.fill((byte) 0);
        qp.postRecv(rwr);
    }

    private static void connect(QueuePair qp, Dest my, Dest rem, int gidx, Mtu mtu) {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(rem.qpn()).rqPsn(rem.psn())
                .maxDestRdAtomic(1).minRnrTimer(Params.MIN_RNR_TIMER);
        AhAttr av = a.ahAttr();
        av.portNum(1).dlid(rem.lid()).sl(0).srcPathBits(0).isGlobal(true);
        av.grh().dgid(rem.gid()).sgidIndex(gidx).hopLimit(0xff).trafficClass(0);
        try {
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                    | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(my.psn()).timeout(14).retryCnt(7).rnrRetry(7)
                    .maxRdAtomic(1), QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                    | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
        } catch (VerbsException e) {
            throw new PerftestException("failed to connect QP " + CFormat.altHex(qp.qpNum(), 6) + ": " + e.getMessage());
        }
    }
}
