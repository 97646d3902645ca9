package org.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;

/**
 * A second transport for the soft core, for its tests: it moves SENDs and RDMA WRITEs between two
 * QPs in memory, on the posting thread, after {@code postSend} has left the lock (one QP lock at a
 * time: the sender's to take the WQE, the receiver's to place it, the sender's to complete it). No
 * GRH, no PSNs, no retries: a SEND that finds no receive WQE fails with RNR_RETRY_EXC_ERR (as
 * rnr_retry 0 would). It knows the core only through {@link QpTransport} and the public methods
 * of {@link SoftQp}, {@link SendQueue} and {@link RecvQueue}.
 */
final class LoopbackTransport implements QpTransport {
    /** What the core called, in order ("transition RESET->INIT", "sendPosted", "flushed", ...). */
    final List<String> calls = new ArrayList<>();
    final SoftQp qp;
    LoopbackTransport peer;
    /** Index of the next send WQE to execute. */
    private long next;

    private LoopbackTransport(SoftPd pd, QpInitAttr attr, int qpn) {
        this.qp = new SoftQp(pd, attr, qpn, this, SendWqe::new);
    }

    static SoftQp create(SoftPd pd, QpInitAttr attr, int qpn) {
        return new LoopbackTransport(pd, attr, qpn).qp;
    }

    static LoopbackTransport of(org.jrdma.verbs.QueuePair q) {
        return (LoopbackTransport) ((SoftQp) q).transport();
    }

    @Override
    public Mtu portMaxMtu() {
        return Mtu.MTU_4096;
    }

    @Override
    public void checkModify(QpAttr attr, int mask, QpState from, QpState to) {
        calls.add("checkModify " + from + "->" + to);
    }

    /** Memory needs no route: any address vector will do (no GRH required). */
    @Override
    public void checkAddressVector(AhAttr av) {
        calls.add("checkAddressVector");
    }

    @Override
    public void transition(QpState from, QpState to, int mask) {
        calls.add("transition " + from + "->" + to);
        if (to == QpState.RTS && from == QpState.RTR) {
            next = qp.sendQueue().head();
        }
    }

    @Override
    public void sendPosted() {
        calls.add("sendPosted");
    }

    @Override
    public void afterSendPosted() {
        pump();
    }

    @Override
    public void recvPosted() {
        calls.add("recvPosted");
    }

    @Override
    public void flushed() {
        calls.add("flushed");
        next = qp.sendQueue().tail();
    }

    @Override
    public void beforeDestroy() {
        calls.add("beforeDestroy");
    }

    @Override
    public void destroyed() {
        calls.add("destroyed");
    }

    /** Executes the posted send WQEs one by one (posting thread, no lock held on entry). */
    private void pump() {
        for (;;) {
            long index;
            WrOpcode op;
            MemorySegment data;
            long remoteAddr;
            int rkey;
            int imm;
            boolean failed = false;
            synchronized (qp.lock()) {
                SendQueue sq = qp.sendQueue();
                if (next == sq.tail() || qp.state() != QpState.RTS) {
                    return;
                }
                index = next++;
                SendWqe w = sq.entry(index);
                WcStatus st = sq.resolve(w, false);
                data = Arena.ofAuto().allocate(Math.max(1, w.length));
                if (st == WcStatus.SUCCESS && !sq.gather(w, 0, data, 0, (int) w.length)) {
                    st = WcStatus.LOC_PROT_ERR;
                }
                if (st != WcStatus.SUCCESS) {
                    qp.completeSendHead(st, 0, 0); // one WQE at a time: it is the head
                    qp.enterError();
                    failed = true;
                }
                data = data.asSlice(0, w.length);
                op = w.opcode;
                remoteAddr = w.remoteAddr;
                rkey = w.rkey;
                imm = w.immData;
            }
            if (failed) {
                qp.raiseCqErrors();
                continue;
            }
            WcStatus result = peer.deliver(op, data, remoteAddr, rkey, imm, qp.qpNum());
            synchronized (qp.lock()) {
                if (qp.sendQueue().head() == index && !qp.sendQueue().isEmpty()) {
                    qp.completeSendHead(result, result == WcStatus.SUCCESS ? (int) data.byteSize() : 0, 0);
                    if (result != WcStatus.SUCCESS) {
                        qp.enterError();
                    }
                }
            }
            qp.raiseCqErrors();
        }
    }

    /** The receiving side (the sender's thread, no lock held on entry). */
    private WcStatus deliver(WrOpcode op, MemorySegment data, long remoteAddr, int rkey, int imm, int srcQpn) {
        WcStatus result;
        synchronized (qp.lock()) {
            result = place(op, data, remoteAddr, rkey, imm, srcQpn);
        }
        qp.raiseCqErrors();
        return result;
    }

    private WcStatus place(WrOpcode op, MemorySegment data, long remoteAddr, int rkey, int imm, int srcQpn) {
        QpState s = qp.state();
        if (s != QpState.RTR && s != QpState.RTS) {
            return WcStatus.RETRY_EXC_ERR; // nobody answers
        }
        boolean write = op == WrOpcode.RDMA_WRITE || op == WrOpcode.RDMA_WRITE_WITH_IMM;
        if (write) {
            SoftMr mr = qp.softPd().softContext().resources().mrs.get(rkey);
            long off = mr == null ? -1 : mr.offsetOf(remoteAddr, data.byteSize());
            if (off < 0 || mr.softPd() != qp.softPd() || !mr.isAccessible() || !mr.allows(AccessFlags.REMOTE_WRITE)
                    || (qp.attributes().qpAccessFlags() & AccessFlags.REMOTE_WRITE) == 0) {
                return WcStatus.REM_ACCESS_ERR;
            }
            MemorySegment.copy(data, 0, mr.segment(), off, data.byteSize());
            if (op == WrOpcode.RDMA_WRITE) {
                return WcStatus.SUCCESS;
            }
        } else if (op != WrOpcode.SEND && op != WrOpcode.SEND_WITH_IMM) {
            return WcStatus.REM_INV_REQ_ERR;
        }
        RecvQueue rq = qp.recvQueue();
        if (rq.isEmpty()) {
            return WcStatus.RNR_RETRY_EXC_ERR;
        }
        boolean withImm = op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
        int flags = withImm ? WcFlags.WITH_IMM : 0;
        WcOpcode wcOp = write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        RecvWqe r = rq.entry(rq.head());
        WcStatus st = rq.resolve(r);
        if (st == WcStatus.SUCCESS && !write && data.byteSize() > r.length) {
            st = WcStatus.LOC_LEN_ERR;
        }
        if (st == WcStatus.SUCCESS && !write && !rq.scatter(r, 0, data, 0, (int) data.byteSize())) {
            st = WcStatus.LOC_PROT_ERR;
        }
        if (st != WcStatus.SUCCESS) {
            qp.completeRecvHead(st, wcOp, 0, 0, srcQpn, 0, false);
            qp.enterError();
            return WcStatus.REM_OP_ERR;
        }
        qp.completeRecvHead(WcStatus.SUCCESS, wcOp, write ? 0 : (int) data.byteSize(), imm, srcQpn, flags, false);
        return WcStatus.SUCCESS;
    }
}
