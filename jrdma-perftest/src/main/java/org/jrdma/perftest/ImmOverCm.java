package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
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

/**
 * {@code jrdma imm_pingpong -R}: the lab's {@code lab-imm} ({@code interop/tools/lab-imm.c}) over
 * jrdma's CM, peer-compatible with it in both roles. The server listens (port 7471 by default),
 * accepts one connection with responder resources and initiator depth 1 and, in the REP's private
 * data, the address (be64) and rkey (be32) of its buffer (12 bytes, packed), after posting 6
 * receives of 4096 bytes (slot i at buffer + (i + 1) × 4096); it prints each receive completion
 * ({@code recv: opcode=... byte_len=... imm=0x... data=ok|MISMATCH|bye!}) until a 4-byte SEND
 * "bye!", then disconnects. The client connects, reads the advertisement, and runs lab-imm's
 * sequence: SEND_WITH_IMM 64 B (immediate 0x11111111), SEND_WITH_IMM 3000 B (0x22222222),
 * RDMA_WRITE_WITH_IMM 64 B (0x33333333) and 3000 B (0x44444444) to the advertised buffer, each
 * awaited and printed ({@code NAME: completed}), then the SEND "bye!", and disconnects. The payload
 * is the byte pattern {@code i & 0xff}, which the server checks. Output lines are lab-imm's.
 *
 * <p>Differences: the client asks for retry and RNR retry counts 7 (lab-imm leaves both 0), since
 * the lab's emulated guests sometimes acknowledge late; the server exits 1 when a payload
 * mismatched or a completion failed (lab-imm prints and exits 0); each side waits (at most 3 s) for
 * the other's part of the disconnect before it exits.
 *
 * <p>Threads: the tool's main thread only (it polls the CQs and takes the CM events).
 */
final class ImmOverCm {
    /** lab-imm's {@code PORT}. */
    static final int PORT = 7471;
    /** lab-imm's {@code SLOT}: the write area and each receive slot, bytes. */
    static final int SLOT = 4096;
    /** lab-imm's {@code NRECV}. */
    static final int NRECV = 6;
    /** The advertisement's size ({@code struct adv}: be64 addr, be32 rkey, packed). */
    static final int ADV_SIZE = 12;

    /** lab-imm's four operations: opcode, length, immediate, name. */
    record Op(WrOpcode opcode, int length, int imm, String name) {
    }

    static final Op[] OPS = {
        new Op(WrOpcode.SEND_WITH_IMM, 64, 0x11111111, "SEND_WITH_IMM 64 B imm 0x11111111"),
        new Op(WrOpcode.SEND_WITH_IMM, 3000, 0x22222222, "SEND_WITH_IMM 3000 B imm 0x22222222"),
        new Op(WrOpcode.RDMA_WRITE_WITH_IMM, 64, 0x33333333, "RDMA_WRITE_WITH_IMM 64 B imm 0x33333333"),
        new Op(WrOpcode.RDMA_WRITE_WITH_IMM, 3000, 0x44444444, "RDMA_WRITE_WITH_IMM 3000 B imm 0x44444444"),
    };

    private final PrintStream out;
    private final String ibDev;
    private final int port;
    private final EventChannel ch = EventChannel.create();
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private CmId id;
    private boolean disconnected;

    private final boolean verbose;

    /** @param verbose also print when the server listens ({@code listening on ADDR port N}; a jrdma addition) */
    ImmOverCm(PrintStream out, String ibDev, int port, boolean verbose) {
        this.out = out;
        this.ibDev = ibDev;
        this.port = port;
        this.verbose = verbose;
    }

    private static QpInitAttr qpAttr(CompletionQueue scq, CompletionQueue rcq) {
        QpInitAttr ia = new QpInitAttr().sendCq(scq).recvCq(rcq);
        ia.cap().maxSendWr(8).maxRecvWr(NRECV).maxSendSge(1).maxRecvSge(1);
        return ia;
    }

    /** lab-imm's server. @return 0, or 1 after a mismatch or a failed completion */
    int server() {
        InetAddress local = CmLink.deviceAddress(ibDev);
        CmId lid = CmId.create(ch, null, PortSpace.TCP);
        try (Arena arena = Arena.ofShared()) {
            try {
                lid.bind(new InetSocketAddress(local, port));
                lid.listen(1);
            } catch (VerbsException e) {
                throw new PerftestException("rdma_create_ep/listen on " + local.getHostAddress() + " port " + port + ": "
                        + e.getMessage());
            }
            if (verbose) {
                out.printf("listening on %s port %d%n", local.getHostAddress(), port);
                out.flush();
            }
            CmEvent req = next(null);
            while (req.type() != CmEventType.CONNECT_REQUEST) {
                req = next(null);
            }
            id = req.id();
            ProtectionDomain pd = id.verbs().allocPd();
            CompletionQueue scq = id.verbs().createCq(8, null);
            CompletionQueue rcq = id.verbs().createCq(NRECV, null);
            QueuePair qp = id.createQp(pd, qpAttr(scq, rcq));
            MemorySegment buf = arena.allocate((long) (NRECV + 1) * SLOT, 4096);
            MemoryRegion mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            RecvWr rwr = new RecvWr();
            for (int i = 0; i < NRECV; i++) {
                rwr.wrId(i).sgList(new Sge(buf.address() + (long) (i + 1) * SLOT, SLOT, mr.lkey()));
                qp.postRecv(rwr);
            }
            byte[] adv = ByteBuffer.allocate(ADV_SIZE).putLong(buf.address()).putInt(mr.rkey()).array();
            id.accept(new ConnParam().privateData(adv).responderResources(1).initiatorDepth(1).retryCount(7)
                    .rnrRetryCount(7));
            lid.destroy();
            out.printf("server: %s, advertised addr=0x%x rkey=0x%x%n", id.verbs().device().name(), buf.address(), mr.rkey());
            out.flush();
            boolean ok = true;
            while (true) {
                WorkCompletion w = await(rcq, "a receive");
                if (w.status() != WcStatus.SUCCESS) {
                    System.err.printf("completion error: %s%n", w.status().str());
                    return 1;
                }
                int slot = (int) w.wrId();
                boolean write = w.opcode() == WcOpcode.RECV_RDMA_WITH_IMM;
                MemorySegment data = write ? buf : buf.asSlice((long) (slot + 1) * SLOT);
                int len = w.byteLen();
                boolean bye = w.opcode() == WcOpcode.RECV && len == 4 && "bye!".equals(ascii(data, 4));
                boolean pattern = len <= data.byteSize() && patternOk(data, len);
                ok &= bye || pattern;
                out.printf("recv: opcode=%s byte_len=%d imm=%s0x%08x data=%s%n", write ? "RECV_RDMA_WITH_IMM" : "RECV", len,
                        (w.wcFlags() & WcFlags.WITH_IMM) != 0 ? "" : "(none) ",
                        (w.wcFlags() & WcFlags.WITH_IMM) != 0 ? w.immData() : 0, bye ? "bye!" : pattern ? "ok" : "MISMATCH");
                out.flush();
                if (bye) {
                    break;
                }
            }
            disconnect();
            qp.close();
            mr.close();
            return ok ? 0 : 1;
        } catch (VerbsException e) {
            throw new PerftestException(e.getMessage());
        } finally {
            lid.destroy();
            if (id != null) {
                id.destroy();
            }
            ch.close();
        }
    }

    /** lab-imm's client. @return 0, or 2 when a post failed (lab-imm's status) */
    int client(String server) {
        InetAddress dst;
        try {
            dst = InetAddress.getByName(server);
        } catch (UnknownHostException e) {
            throw new PerftestException("rdma_getaddrinfo: cannot resolve '" + server + "'");
        }
        InetSocketAddress src = ibDev == null ? null : new InetSocketAddress(CmLink.deviceAddress(ibDev), 0);
        id = CmId.create(ch, null, PortSpace.TCP);
        try (Arena arena = Arena.ofShared()) {
            id.resolveAddr(src, new InetSocketAddress(dst, port), CmLink.RESOLVE_TIMEOUT);
            expect(next(CmLink.RESOLVE_WAIT), CmEventType.ADDR_RESOLVED, "rdma_resolve_addr");
            id.resolveRoute(CmLink.RESOLVE_TIMEOUT);
            expect(next(CmLink.RESOLVE_WAIT), CmEventType.ROUTE_RESOLVED, "rdma_resolve_route");
            ProtectionDomain pd = id.verbs().allocPd();
            CompletionQueue scq = id.verbs().createCq(8, null);
            CompletionQueue rcq = id.verbs().createCq(NRECV, null);
            QueuePair qp = id.createQp(pd, qpAttr(scq, rcq));
            MemorySegment buf = arena.allocate(SLOT, 4096);
            for (int i = 0; i < SLOT; i++) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            MemoryRegion mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE);
            id.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
            CmEvent est = next(CmLink.CONNECT_WAIT);
            expect(est, CmEventType.ESTABLISHED, "rdma_connect");
            byte[] pdata = est.privateData();
            if (pdata.length < ADV_SIZE) {
                System.err.println("no buffer advertisement in the CM private data");
                return 1;
            }
            ByteBuffer adv = ByteBuffer.wrap(pdata);
            long raddr = adv.getLong(0);
            int rkey = adv.getInt(8);
            out.printf("client: %s, server buffer addr=0x%x rkey=0x%x%n", id.verbs().device().name(), raddr, rkey);
            out.flush();
            boolean failed = false;
            SendWr wr = new SendWr().sendFlags(SendFlags.SIGNALED);
            for (int i = 0; i < OPS.length; i++) {
                Op op = OPS[i];
                wr.wrId(i).opcode(op.opcode()).immData(op.imm()).sgList(new Sge(buf.address(), op.length(), mr.lkey()))
                        .rdma(raddr, rkey);
                failed |= !postWait(qp, scq, wr, op.name());
            }
            buf.asSlice(SLOT - 4, 4).copyFrom(MemorySegment.ofArray("bye!".getBytes(StandardCharsets.US_ASCII)));
            wr.wrId(99).opcode(WrOpcode.SEND).sgList(new Sge(buf.address() + SLOT - 4, 4, mr.lkey()));
            postWait(qp, scq, wr, "SEND 4 B \"bye!\"");
            disconnect();
            qp.close();
            mr.close();
            return failed ? 2 : 0;
        } catch (VerbsException e) {
            throw new PerftestException(e.getMessage());
        } finally {
            id.destroy();
            ch.close();
        }
    }

    /** lab-imm's post_wait: posts, awaits the completion, prints "NAME: completed"; false when the post failed. */
    private boolean postWait(QueuePair qp, CompletionQueue scq, SendWr wr, String what) {
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            out.printf("%s: ibv_post_send failed: %s%n", what, e.getMessage());
            return false;
        }
        WorkCompletion w = await(scq, what);
        if (w.status() != WcStatus.SUCCESS) {
            System.err.printf("completion error: %s%n", w.status().str());
            throw new PerftestException(what + ": completed with " + w.status().str());
        }
        out.printf("%s: completed%n", what);
        out.flush();
        return true;
    }

    /** Polls {@code cq}; a DISCONNECTED of the connection ends the wait with an error. */
    private WorkCompletion await(CompletionQueue cq, String what) {
        long nextCheck = System.nanoTime();
        for (int idle = 0; cq.poll(wc) == 0; idle++) {
            if (System.nanoTime() - nextCheck > 0) {
                nextCheck = System.nanoTime() + 5_000_000;
                for (Optional<CmEvent> e = ch.getEvent(Duration.ZERO); e.isPresent(); e = ch.getEvent(Duration.ZERO)) {
                    e.get().ack();
                    disconnected |= e.get().type() == CmEventType.DISCONNECTED && e.get().id() == id;
                }
                if (disconnected && cq.poll(wc) == 0) {
                    throw new PerftestException("the peer disconnected while waiting for " + what);
                } else if (disconnected) {
                    return wc[0];
                }
            }
            if (idle < 4096) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return wc[0];
    }

    /** The next CM event (acknowledged), waiting at most {@code timeout} (null: without limit). */
    private CmEvent next(Duration timeout) {
        while (true) {
            Optional<CmEvent> e = ch.getEvent(timeout == null ? Duration.ofSeconds(1) : timeout);
            if (e.isPresent()) {
                e.get().ack();
                if (e.get().type() == CmEventType.DISCONNECTED && e.get().id() == id) {
                    disconnected = true;
                }
                return e.get();
            }
            if (timeout != null) {
                throw new PerftestException("no CM event within " + timeout.toSeconds() + " s");
            }
        }
    }

    private static void expect(CmEvent e, CmEventType type, String call) {
        if (e.type() != type) {
            throw new PerftestException(call + ": " + e.type().eventStr() + " (status " + e.status() + "), expected "
                    + type.eventStr());
        }
    }

    /** rdma_disconnect, then at most {@link CmLink#LINGER} for DISCONNECTED. */
    private void disconnect() {
        try {
            if (!disconnected) {
                id.disconnect();
            }
            long end = System.nanoTime() + CmLink.LINGER.toNanos();
            while (!disconnected && System.nanoTime() < end) {
                Optional<CmEvent> e = ch.getEvent(Duration.ofMillis(50));
                if (e.isPresent()) {
                    e.get().ack();
                    disconnected |= e.get().type() == CmEventType.DISCONNECTED && e.get().id() == id;
                }
            }
        } catch (VerbsException ignored) {
            // already disconnected by the peer
        }
    }

    private static boolean patternOk(MemorySegment p, int len) {
        for (int i = 0; i < len; i++) {
            if (p.get(ValueLayout.JAVA_BYTE, i) != (byte) i) {
                return false;
            }
        }
        return true;
    }

    private static String ascii(MemorySegment s, int n) {
        byte[] b = new byte[n];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return new String(b, StandardCharsets.US_ASCII);
    }
}
