package org.jrdma.interop.peer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.perftest.Dest;
import org.jrdma.perftest.OobChannel;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
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
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.HardwareCounters;

/**
 * The jrdma side of the lab's error-path tests: a small verbs program that connects one RC QP to a
 * cooperating Linux program on rxe through that program's own TCP exchange, then does on purpose what
 * Linux's packaged tools never do. Run on the host in the lab namespace on the launchers' JDK and
 * module path (device {@code jrxe0} from {@code JRDMA_DEVICES}, GID index 0). Prints
 * {@code peer: ...} lines; the last lines are {@code peer: result STATUS ...} and
 * {@code peer: counters {...}} (jrdma's device counters, rxe names). Exit 0 when the outcome named by
 * the mode happened, 1 when not, 2 for bad arguments.
 *
 * <pre>
 * write-bad-rkey HOST PORT
 *     perftest client against a Linux {@code ib_write_bw} server: the exchange, then one RDMA WRITE
 *     with the server's rkey corrupted; expects REM_ACCESS_ERR.
 * send-rnr-exceeded HOST PORT ITERS SIZE RNR_RETRY
 *     perftest client against a Linux {@code ib_send_bw -n ITERS -s SIZE} server, which posts its
 *     receives before the run and reposts none it does not need: sends ITERS SENDs (expects SUCCESS),
 *     then more, one at a time, until one finds no receive at Linux; expects RNR_RETRY_EXC_ERR after
 *     RNR_RETRY retries.
 * pingpong-server-late-recv PORT SIZE ITERS DELAY_MS
 *     {@code ibv_rc_pingpong} server for a Linux {@code ibv_rc_pingpong} client, which sends at once;
 *     posts its receives only DELAY_MS after the exchange, so jrdma answers RNR NAKs until then; then
 *     answers each ping with a pong; expects every completion SUCCESS.
 * pingpong-client-vanish HOST PORT SIZE TRIGGER_FILE TIMEOUT RETRY_CNT
 *     {@code ibv_rc_pingpong} client against a Linux {@code ibv_rc_pingpong} server: two pings (SUCCESS),
 *     then prints "peer: ready", waits for TRIGGER_FILE (the test kills the Linux server first), sends a
 *     ping to the vanished peer; expects RETRY_EXC_ERR (local ACK timeout 4.096 us x 2^TIMEOUT, RETRY_CNT
 *     retries).
 * </pre>
 */
public final class RcPeer {
    private static final int PORT_NUM = 1;
    private static final int GID_INDEX = 0;
    private static final Mtu MTU = Mtu.MTU_1024;
    /** send-rnr-exceeded: SENDs beyond ITERS before giving up (perftest's default rx_depth is 512). */
    private static final int MAX_EXTRA = 600;

    private final Context ctx;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final Gid gid;
    private final int psn = ThreadLocalRandom.current().nextInt() & 0xffffff;
    private final WorkCompletion[] wc = {new WorkCompletion()};

    private RcPeer(int bufBytes, int access, int depth) {
        ctx = Verbs.getDevice(System.getProperty("jrdma.peer.device", "jrxe0")).open();
        gid = ctx.queryGid(PORT_NUM, GID_INDEX);
        pd = ctx.allocPd();
        buf = Arena.global().allocate(bufBytes, 4096);
        mr = pd.regMr(buf, access);
        cq = ctx.createCq(2 * depth + 2, null);
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(depth).maxRecvWr(depth).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(ia);
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(PORT_NUM)
                .qpAccessFlags(access & ~AccessFlags.LOCAL_WRITE),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        say("local QPN " + hex(qp.qpNum(), 6) + " PSN " + hex(psn, 6) + " GID " + gid + " rkey " + hex(mr.rkey() & 0xffffffffL, 8));
    }

    /** INIT -> RTR -> RTS towards the remote QP, with libibverbs' attribute masks. */
    private void connect(int remoteQpn, int remotePsn, Gid remoteGid, int minRnrTimer, int timeout, int retryCnt,
            int rnrRetry, int rdAtomic) {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(MTU).destQpNum(remoteQpn).rqPsn(remotePsn)
                .maxDestRdAtomic(rdAtomic).minRnrTimer(minRnrTimer);
        a.ahAttr().portNum(PORT_NUM).dlid(0).sl(0).srcPathBits(0).isGlobal(true);
        a.ahAttr().grh().dgid(remoteGid).sgidIndex(GID_INDEX).hopLimit(0xff).trafficClass(0);
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                .maxRdAtomic(rdAtomic), QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT
                | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
        say("connected to QPN " + hex(remoteQpn, 6) + " PSN " + hex(remotePsn, 6) + " GID " + remoteGid
                + " (timeout " + timeout + ", retry_cnt " + retryCnt + ", rnr_retry " + rnrRetry + ")");
    }

    private void postSend(long wrId, WrOpcode op, int offset, int length, long remoteAddr, int rkey) {
        SendWr wr = new SendWr().wrId(wrId).opcode(op).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address() + offset, length, mr.lkey()));
        if (op == WrOpcode.RDMA_WRITE) {
            wr.rdma(remoteAddr, rkey);
        }
        qp.postSend(wr);
    }

    private void postRecv(long wrId, int offset, int length) {
        qp.postRecv(new RecvWr().wrId(wrId).sgList(new Sge(buf.address() + offset, length, mr.lkey())));
    }

    /** Polls one completion (busy, yielding) for up to {@code millis}; null on timeout. */
    private WorkCompletion poll(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc, 1) == 1) {
                say("wc wr_id " + wc[0].wrId() + " status " + wc[0].status() + " opcode " + wc[0].opcode()
                        + " byte_len " + wc[0].byteLen());
                return wc[0];
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return null;
    }

    private Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>();
        ctx.extension(HardwareCounters.class).ifPresent(hw -> {
            for (int i = 0; i < hw.names().size(); i++) {
                if (hw.get(i) != 0) {
                    m.put(hw.names().get(i), hw.get(i));
                }
            }
        });
        return m;
    }

    private int finish(WcStatus expected, WorkCompletion got, String what) {
        String status = got == null ? "NONE (no completion in time)" : got.status().name();
        say("result " + status + " for " + what + " (expected " + expected + ")");
        say("counters " + counters());
        return got != null && got.status() == expected ? 0 : 1;
    }

    // ------------------------------------------------------------------ perftest client

    /** perftest's client side up to the point where traffic starts; returns the server's QP data. */
    private Dest perftestExchange(OobChannel comm, boolean send) {
        comm.exchangeVersions(OobChannel.VERSION);
        comm.exchangeSysData(4096, 64);
        comm.exchangeMtu(MTU.value());
        Dest my = new Dest(0, 1, qp.qpNum(), psn, mr.rkey(), buf.address(), gid, 0);
        Dest rem = comm.handShake(my);
        say("perftest server: QPN " + hex(rem.qpn(), 6) + " PSN " + hex(rem.psn(), 6) + " rkey " + hex(rem.rkey() & 0xffffffffL, 8)
                + " vaddr " + Long.toHexString(rem.vaddr()));
        connect(rem.qpn(), rem.psn(), rem.gid(), 12, 14, 7, 7, 1);
        comm.handShake(my);              // write_bw: print remote; send_bw: after RTR
        comm.handShake(my);              // write_bw: after RTR; send_bw: print remote
        if (send) {
            comm.handShake(my);          // send_bw: the server has posted its receives
        }
        return rem;
    }

    private static int writeBadRkey(String host, int port) {
        RcPeer p = new RcPeer(65536, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, 16);
        try (OobChannel comm = OobChannel.connect(host, port, 10_000)) {
            Dest rem = p.perftestExchange(comm, false);
            int bad = rem.rkey() ^ 0x80000000;
            say("RDMA WRITE 64 bytes to vaddr " + Long.toHexString(rem.vaddr()) + " with rkey " + hex(bad & 0xffffffffL, 8)
                    + " (the server's " + hex(rem.rkey() & 0xffffffffL, 8) + " with bit 31 flipped)");
            p.postSend(1, WrOpcode.RDMA_WRITE, 0, 64, rem.vaddr(), bad);
            return p.finish(WcStatus.REM_ACCESS_ERR, p.poll(20_000), "RDMA WRITE with a bad rkey");
        }
    }

    private int sendRnrExceeded(String host, int port, int iters, int size, int rnrRetry) {
        try (OobChannel comm = OobChannel.connect(host, port, 10_000)) {
            comm.exchangeVersions(OobChannel.VERSION);
            comm.exchangeSysData(4096, 64);
            comm.exchangeMtu(MTU.value());
            Dest my = new Dest(0, 1, qp.qpNum(), psn, mr.rkey(), buf.address(), gid, 0);
            Dest rem = comm.handShake(my);
            connect(rem.qpn(), rem.psn(), rem.gid(), 12, 14, 7, rnrRetry, 1);
            comm.handShake(my);
            comm.handShake(my);
            comm.handShake(my);          // the server has posted its ITERS receives
            for (int i = 0; i < iters; i++) {
                postSend(i, WrOpcode.SEND, 0, size, 0, 0);
                WorkCompletion w = poll(20_000);
                if (w == null || w.status() != WcStatus.SUCCESS) {
                    return finish(WcStatus.SUCCESS, w, "SEND " + (i + 1) + " of the " + iters + " the server expects");
                }
            }
            // perftest posted at least ITERS receives (rx_depth, capped to ITERS) and reposts none that the
            // test does not need; send on, one at a time, until the receive queue is empty
            say(iters + " SENDs completed; more until the server has no receive posted (at most " + MAX_EXTRA + ")");
            WorkCompletion w = null;
            int extra = 0;
            while (extra < MAX_EXTRA) {
                postSend(iters + extra, WrOpcode.SEND, 0, size, 0, 0);
                w = poll(30_000);
                extra++;
                if (w == null || w.status() != WcStatus.SUCCESS) {
                    break;
                }
            }
            say("SENDs beyond the " + iters + " iterations: " + extra + " (the last one is the one that failed)");
            return finish(WcStatus.RNR_RETRY_EXC_ERR, w, "a SEND with no receive posted at the peer (rnr_retry "
                    + rnrRetry + ")");
        }
    }

    // ------------------------------------------------------------------ ibv_rc_pingpong

    /** rc_pingpong's message: "%04x:%06x:%06x:%s" (LID, QPN, PSN, wire GID), sizeof = 52 bytes with the NUL. */
    private static final int PP_MSG = 52;

    private byte[] ppMessage() {
        String s = String.format("%04x:%06x:%06x:%s", 0, qp.qpNum(), psn, HexFormat.of().formatHex(gid.raw()));
        byte[] m = new byte[PP_MSG];
        byte[] a = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(a, 0, m, 0, a.length);
        return m;
    }

    private record PpDest(int qpn, int psn, Gid gid) {
    }

    private static PpDest ppParse(byte[] m) {
        String s = new String(m, StandardCharsets.US_ASCII).replaceAll("\0.*$", "");
        String[] f = s.split(":");
        if (f.length != 4 || f[3].length() != 32) {
            throw new IllegalStateException("not an ibv_rc_pingpong message: '" + s + "'");
        }
        return new PpDest(Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16), Gid.of(HexFormat.of().parseHex(f[3])));
    }

    private static void readFully(InputStream in, byte[] b) throws IOException {
        int n = 0;
        while (n < b.length) {
            int r = in.read(b, n, b.length - n);
            if (r < 0) {
                throw new IOException("peer closed the TCP connection after " + n + " of " + b.length + " bytes");
            }
            n += r;
        }
    }

    private int pingpongServerLateRecv(int port, int size, int iters, long delayMs) throws Exception {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port), 1);
            say("listening on TCP port " + port);
            try (Socket s = ss.accept()) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                byte[] m = new byte[PP_MSG];
                readFully(in, m);
                PpDest rem = ppParse(m);
                // ibv_rc_pingpong: min_rnr_timer 12 (0.64 ms), timeout 14, retry_cnt 7, rnr_retry 7
                connect(rem.qpn(), rem.psn(), rem.gid(), 12, 14, 7, 7, 1);
                out.write(ppMessage());
                out.flush();
                readFully(in, new byte[5]);                    // "done"
                say("no receive posted for " + delayMs + " ms: the client's first SEND gets RNR NAKs");
                Thread.sleep(delayMs);
                for (int i = 0; i < iters; i++) {
                    postRecv(1000 + i, 0, size);
                }
                say(iters + " receives posted");
                for (int i = 0; i < iters; i++) {
                    WorkCompletion w = poll(20_000);
                    if (w == null || w.status() != WcStatus.SUCCESS) {
                        return finish(WcStatus.SUCCESS, w, "ping " + (i + 1));
                    }
                    postSend(i, WrOpcode.SEND, size, size, 0, 0);
                    w = poll(20_000);
                    if (w == null || w.status() != WcStatus.SUCCESS) {
                        return finish(WcStatus.SUCCESS, w, "pong " + (i + 1));
                    }
                }
                return finish(WcStatus.SUCCESS, wc[0], iters + " pings received after the RNR NAKs, "
                        + iters + " pongs sent");
            }
        }
    }

    private int pingpongClientVanish(String host, int port, int size, Path trigger, int timeout, int retryCnt)
            throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 10_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            out.write(ppMessage());
            out.flush();
            byte[] m = new byte[PP_MSG];
            readFully(in, m);
            PpDest rem = ppParse(m);
            connect(rem.qpn(), rem.psn(), rem.gid(), 12, timeout, retryCnt, 7, 1);
            out.write("done\0".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (int i = 0; i < 2; i++) {
                postRecv(1000 + i, size, size);
                postSend(i, WrOpcode.SEND, 0, size, 0, 0);
                for (int k = 0; k < 2; k++) {
                    WorkCompletion w = poll(20_000);
                    if (w == null || w.status() != WcStatus.SUCCESS) {
                        return finish(WcStatus.SUCCESS, w, "ping-pong " + (i + 1));
                    }
                }
            }
            // the counters so far: the test counts what the vanished peer's SEND adds to them
            say("ready: 2 ping-pongs done, counters " + counters() + "; waiting for " + trigger);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(trigger)) {
                if (System.nanoTime() > deadline) {
                    say("no trigger file in 60 s");
                    return 1;
                }
                Thread.sleep(50);
            }
            say("sending to the vanished peer");
            postSend(99, WrOpcode.SEND, 0, size, 0, 0);
            long t0 = System.nanoTime();
            WorkCompletion w = poll(60_000);
            say("completion after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            return finish(WcStatus.RETRY_EXC_ERR, w, "a SEND to a peer that vanished (timeout " + timeout
                    + ", retry_cnt " + retryCnt + ")");
        }
    }

    // ------------------------------------------------------------------ main

    private static void say(String s) {
        System.out.println("peer: " + s);
        System.out.flush();
    }

    private static String hex(long v, int digits) {
        return String.format("0x%0" + digits + "x", v);
    }

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            System.err.println("peer: bad arguments: " + e.getMessage() + " (see RcPeer's Javadoc)");
            rc = 2;
        } catch (Exception e) {
            say("failed: " + e);
            rc = 1;
        }
        System.exit(rc);
    }

    private static int run(String[] a) throws Exception {
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        return switch (a[0]) {
            case "write-bad-rkey" -> writeBadRkey(a[1], Integer.parseInt(a[2]));
            case "send-rnr-exceeded" -> new RcPeer(2 * Integer.parseInt(a[4]) + 4096, access, 16)
                    .sendRnrExceeded(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                            Integer.parseInt(a[5]));
            case "pingpong-server-late-recv" -> new RcPeer(2 * Integer.parseInt(a[2]) + 4096, access,
                    Integer.parseInt(a[3]) + 2).pingpongServerLateRecv(Integer.parseInt(a[1]), Integer.parseInt(a[2]),
                            Integer.parseInt(a[3]), Long.parseLong(a[4]));
            case "pingpong-client-vanish" -> new RcPeer(2 * Integer.parseInt(a[3]) + 4096, access, 8)
                    .pingpongClientVanish(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]), Path.of(a[4]),
                            Integer.parseInt(a[5]), Integer.parseInt(a[6]));
            default -> {
                System.err.println("peer: unknown mode " + a[0]);
                yield 2;
            }
        };
    }
}
