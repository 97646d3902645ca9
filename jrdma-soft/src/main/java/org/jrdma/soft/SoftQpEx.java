package org.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBindInfo;
import org.jrdma.verbs.QpEx;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendOpsFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WrOpcode;

/**
 * The {@code ibv_wr_*} API of a {@link SoftQp} ({@link QpEx}): a batch is built into up to
 * max_send_wr pre-allocated {@link SendWr}s (each with its own SGEs and an inline buffer of
 * max_inline_data bytes) and handed to {@link SoftQp#postSendBatch} by {@link #wrComplete()}, which
 * checks all of it and posts all of it under the QP's lock, or nothing.
 *
 * <p>Threads and locks: the batch lock (a {@link ReentrantLock}, one per QP) is held by the
 * application thread that called {@link #wrStart()} until its {@link #wrComplete()} or
 * {@link #wrAbort()}; only application threads take it, before any lock of the provider (it comes
 * first in the lock order: batch lock, then the receive lock a poll may try, then the QP's lock).
 * The builders touch only the batch; the QP's lock is taken once, inside {@code wrComplete}.
 */
final class SoftQpEx implements QpEx {
    private final SoftQp qp;
    private final int sendOpsFlags;
    private final ReentrantLock batchLock = new ReentrantLock();
    private final SendWr[] batch;
    private final Sge[][] sges;
    private final MemorySegment[] inline;
    private final int maxSge;
    private final int maxInline;
    private long wrId;
    private int wrFlags;
    /** WRs built in the open batch. */
    private int count;
    /** The first errno a builder or setter recorded in the open batch, 0 for none. */
    private int err;
    private String errWhat;

    SoftQpEx(SoftQp qp, int sendOpsFlags) {
        this.qp = qp;
        this.sendOpsFlags = sendOpsFlags;
        SendQueue sq = qp.sendQueue();
        this.maxSge = sq.maxSge();
        this.maxInline = sq.maxInline();
        int n = sq.maxWr();
        this.batch = new SendWr[n];
        this.sges = new Sge[n][];
        this.inline = new MemorySegment[n];
        Arena arena = Arena.ofAuto();
        for (int i = 0; i < n; i++) {
            sges[i] = new Sge[maxSge];
            for (int k = 0; k < maxSge; k++) {
                sges[i][k] = new Sge();
            }
            batch[i] = new SendWr().sgList(sges[i]);
            inline[i] = maxInline > 0 ? arena.allocate(maxInline, 8) : MemorySegment.NULL;
        }
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public int sendOpsFlags() {
        return sendOpsFlags;
    }

    @Override
    public long wrId() {
        return wrId;
    }

    @Override
    public QpEx wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    @Override
    public int wrFlags() {
        return wrFlags;
    }

    @Override
    public QpEx wrFlags(int wrFlags) {
        this.wrFlags = wrFlags;
        return this;
    }

    @Override
    public void wrStart() {
        if (batchLock.isHeldByCurrentThread()) {
            throw new VerbsException(Errno.EINVAL, "wr_start with a batch of this thread open (wr_complete or wr_abort it first)");
        }
        batchLock.lock();
        count = 0;
        err = 0;
        errWhat = null;
    }

    private void requireBatch() {
        if (!batchLock.isHeldByCurrentThread()) {
            throw new VerbsException(Errno.EINVAL, "no batch of this thread is open (ibv_wr_start first)");
        }
    }

    private void fail(int errno, String what) {
        if (err == 0) {
            err = errno;
            errWhat = what;
        }
    }

    /** Starts the next WR of the batch for {@code op}, or null when the batch already failed or cannot take it. */
    private SendWr next(WrOpcode op) {
        requireBatch();
        if (err != 0) {
            return null;
        }
        if ((sendOpsFlags & SendOpsFlags.of(op)) == 0) {
            fail(Errno.EOPNOTSUPP, op + " is not in the QP's send_ops_flags");
            return null;
        }
        if (count == batch.length) {
            fail(Errno.ENOSPC, "more than max_send_wr " + batch.length + " WRs in one batch");
            return null;
        }
        SendWr w = batch[count++];
        return w.wrId(wrId).opcode(op).sendFlags(wrFlags).numSge(0).immData(0).rdma(0, 0).atomic(0, 0, 0, 0)
                .atomicWrite(0, 0, 0).flush(0, 0, 0, 0, 0).ud(null, 0, 0).invalidateRkey(0);
    }

    /** The WR built last, for a setter; null (and EINVAL recorded) when there is none. */
    private SendWr current(String setter) {
        requireBatch();
        if (err != 0) {
            return null;
        }
        if (count == 0) {
            fail(Errno.EINVAL, setter + " without a WR (call a builder first)");
            return null;
        }
        return batch[count - 1];
    }

    @Override
    public void wrRdmaWrite(int rkey, long remoteAddr) {
        SendWr w = next(WrOpcode.RDMA_WRITE);
        if (w != null) {
            w.rdma(remoteAddr, rkey);
        }
    }

    @Override
    public void wrRdmaWriteImm(int rkey, long remoteAddr, int immData) {
        SendWr w = next(WrOpcode.RDMA_WRITE_WITH_IMM);
        if (w != null) {
            w.rdma(remoteAddr, rkey).immData(immData);
        }
    }

    @Override
    public void wrRdmaRead(int rkey, long remoteAddr) {
        SendWr w = next(WrOpcode.RDMA_READ);
        if (w != null) {
            w.rdma(remoteAddr, rkey);
        }
    }

    @Override
    public void wrSend() {
        next(WrOpcode.SEND);
    }

    @Override
    public void wrSendImm(int immData) {
        SendWr w = next(WrOpcode.SEND_WITH_IMM);
        if (w != null) {
            w.immData(immData);
        }
    }

    @Override
    public void wrSendInv(int invalidateRkey) {
        SendWr w = next(WrOpcode.SEND_WITH_INV);
        if (w != null) {
            w.invalidateRkey(invalidateRkey);
        }
    }

    @Override
    public void wrAtomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        SendWr w = next(WrOpcode.ATOMIC_CMP_AND_SWP);
        if (w != null) {
            w.atomic(remoteAddr, rkey, compare, swap);
        }
    }

    @Override
    public void wrAtomicFetchAdd(int rkey, long remoteAddr, long add) {
        SendWr w = next(WrOpcode.ATOMIC_FETCH_AND_ADD);
        if (w != null) {
            w.atomic(remoteAddr, rkey, add, 0);
        }
    }

    @Override
    public void wrAtomicWrite(int rkey, long remoteAddr, long value) {
        SendWr w = next(WrOpcode.ATOMIC_WRITE);
        if (w != null) {
            w.atomicWrite(remoteAddr, rkey, value);
        }
    }

    @Override
    public void wrFlush(int rkey, long remoteAddr, long length, int type, int level) {
        SendWr w = next(WrOpcode.FLUSH);
        if (w != null) {
            w.flush(remoteAddr, rkey, length, type, level);
        }
    }

    @Override
    public void wrLocalInv(int invalidateRkey) {
        SendWr w = next(WrOpcode.LOCAL_INV);
        if (w != null) {
            w.invalidateRkey(invalidateRkey);
        }
    }

    @Override
    public void wrBindMw(MemoryWindow mw, int rkey, MwBindInfo info) {
        if (info == null) {
            requireBatch();
            fail(Errno.EINVAL, "wr_bind_mw without bind_info");
            return;
        }
        SendWr w = next(WrOpcode.BIND_MW);
        if (w != null) {
            w.bindMw(mw, rkey, info);
        }
    }

    @Override
    public void wrSetSge(int lkey, long addr, int length) {
        SendWr w = current("wr_set_sge");
        if (w == null) {
            return;
        }
        if (length < 0) {
            fail(Errno.EINVAL, "SGE length " + Integer.toUnsignedString(length) + " not in 0..2^31-1");
            return;
        }
        sges[count - 1][0].set(addr, length, lkey);
        w.numSge(1).sendFlags(w.sendFlags() & ~SendFlags.INLINE);
    }

    @Override
    public void wrSetSgeList(int numSge, Sge[] sgList) {
        SendWr w = current("wr_set_sge_list");
        if (w == null) {
            return;
        }
        if (numSge < 0 || numSge > maxSge || numSge > sgList.length) {
            fail(Errno.EINVAL, "num_sge " + numSge + " above max_send_sge " + maxSge);
            return;
        }
        Sge[] own = sges[count - 1];
        for (int i = 0; i < numSge; i++) {
            Sge s = sgList[i];
            own[i].set(s.addr(), s.length(), s.lkey());
        }
        w.numSge(numSge).sendFlags(w.sendFlags() & ~SendFlags.INLINE);
    }

    @Override
    public void wrSetInlineData(MemorySegment data) {
        SendWr w = current("wr_set_inline_data");
        if (w == null) {
            return;
        }
        long len = data.byteSize();
        if (len > maxInline) {
            fail(Errno.EINVAL, "inline data of " + len + " bytes above max_inline_data " + maxInline);
            return;
        }
        MemorySegment.copy(data, 0, inline[count - 1], 0, len);
        setInline(w, (int) len);
    }

    @Override
    public void wrSetInlineDataList(int numBuf, MemorySegment[] bufList) {
        SendWr w = current("wr_set_inline_data_list");
        if (w == null) {
            return;
        }
        if (numBuf < 0 || numBuf > bufList.length) {
            fail(Errno.EINVAL, "num_buf " + numBuf + " not in 0.." + bufList.length);
            return;
        }
        long total = 0;
        for (int i = 0; i < numBuf; i++) {
            total += bufList[i].byteSize();
        }
        if (total > maxInline) {
            fail(Errno.EINVAL, "inline data of " + total + " bytes above max_inline_data " + maxInline);
            return;
        }
        MemorySegment dst = inline[count - 1];
        long off = 0;
        for (int i = 0; i < numBuf; i++) {
            MemorySegment b = bufList[i];
            MemorySegment.copy(b, 0, dst, off, b.byteSize());
            off += b.byteSize();
        }
        setInline(w, (int) total);
    }

    /** The WR's payload is the first {@code len} bytes of its inline buffer (the send queue copies them at post). */
    private void setInline(SendWr w, int len) {
        sges[count - 1][0].set(inline[count - 1].address(), len, 0);
        w.numSge(len == 0 ? 0 : 1).sendFlags(w.sendFlags() | SendFlags.INLINE);
    }

    @Override
    public void wrSetUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        SendWr w = current("wr_set_ud_addr");
        if (w != null) {
            w.ud(ah, remoteQpn, remoteQkey);
        }
    }

    @Override
    public void wrComplete() {
        requireBatch();
        try {
            if (err != 0) {
                throw new VerbsException(err, errWhat);
            }
            qp.postSendBatch(batch, count);
        } finally {
            count = 0;
            batchLock.unlock();
        }
    }

    @Override
    public void wrAbort() {
        requireBatch();
        count = 0;
        batchLock.unlock();
    }

    @Override
    public String toString() {
        return "QpEx of " + qp;
    }
}
