package org.jrdma.soft;

import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.CqEx;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcExFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;

/**
 * The start/next/end poll API of a {@link SoftCq} ({@link CqEx}). Each completion made current is
 * moved out of the CQ into this object's one {@link WorkCompletion} by the CQ's ordinary
 * {@link SoftCq#poll(WorkCompletion[], int)} (its lock, its receive-in-this-thread when empty, its
 * EIO after an overrun), so producers never wait for a poll to end.
 *
 * <p>Threads and locks: the poll lock (a {@link ReentrantLock}, one per CQ) is held by the
 * application thread between a {@link #startPoll()} that returned 0 and its {@link #endPoll()};
 * only application threads take it, before any lock of the provider (the CQ's lock is taken inside,
 * per completion).
 */
final class SoftCqEx implements CqEx {
    private final SoftCq cq;
    private final long wcFlags;
    private final ReentrantLock pollLock = new ReentrantLock();
    private final WorkCompletion[] one = {new WorkCompletion()};

    SoftCqEx(SoftCq cq, long wcFlags) {
        this.cq = cq;
        this.wcFlags = wcFlags;
    }

    @Override
    public CompletionQueue cq() {
        return cq;
    }

    @Override
    public long wcFlags() {
        return wcFlags;
    }

    @Override
    public int startPoll() {
        if (pollLock.isHeldByCurrentThread()) {
            throw new VerbsException(Errno.EINVAL, "start_poll with a poll of this thread open (end_poll first)");
        }
        pollLock.lock();
        boolean open = false;
        try {
            open = cq.poll(one, 1) == 1;
            return open ? 0 : Errno.ENOENT;
        } finally {
            if (!open) {
                pollLock.unlock();
            }
        }
    }

    @Override
    public int nextPoll() {
        requirePoll();
        return cq.poll(one, 1) == 1 ? 0 : Errno.ENOENT;
    }

    @Override
    public void endPoll() {
        requirePoll();
        pollLock.unlock();
    }

    private void requirePoll() {
        if (!pollLock.isHeldByCurrentThread()) {
            throw new VerbsException(Errno.EINVAL, "no poll of this thread is open (ibv_start_poll first)");
        }
    }

    private WorkCompletion current(long flag) {
        requirePoll();
        if ((wcFlags & flag) != flag) {
            throw new VerbsException(Errno.EINVAL, "this field was not requested in the CQ's wc_flags (0x"
                    + Long.toHexString(flag) + ")");
        }
        return one[0];
    }

    @Override
    public long wrId() {
        return current(0).wrId();
    }

    @Override
    public WcStatus status() {
        return current(0).status();
    }

    @Override
    public WcOpcode readOpcode() {
        return current(0).opcode();
    }

    @Override
    public int readVendorErr() {
        return current(0).vendorErr();
    }

    @Override
    public int readByteLen() {
        return current(WcExFlags.WITH_BYTE_LEN).byteLen();
    }

    @Override
    public int readImmData() {
        return current(WcExFlags.WITH_IMM).immData();
    }

    @Override
    public int readQpNum() {
        return current(WcExFlags.WITH_QP_NUM).qpNum();
    }

    @Override
    public int readSrcQp() {
        return current(WcExFlags.WITH_SRC_QP).srcQp();
    }

    @Override
    public int readWcFlags() {
        return current(0).wcFlags();
    }

    @Override
    public int readSlid() {
        return current(WcExFlags.WITH_SLID).slid();
    }

    @Override
    public int readSl() {
        return current(WcExFlags.WITH_SL).sl();
    }

    @Override
    public int readDlidPathBits() {
        current(WcExFlags.WITH_DLID_PATH_BITS);
        return 0; // no LIDs on RoCE: the path bits of the destination LID are 0 (rxe)
    }

    @Override
    public long readCompletionTs() {
        return current(WcExFlags.WITH_COMPLETION_TIMESTAMP).completionTs();
    }

    @Override
    public long readCompletionWallclockNs() {
        return cq.wallclockNs(current(WcExFlags.WITH_COMPLETION_TIMESTAMP_WALLCLOCK).completionTs());
    }

    @Override
    public String toString() {
        return "CqEx of CQ (cqe " + cq.cqe() + ")";
    }
}
