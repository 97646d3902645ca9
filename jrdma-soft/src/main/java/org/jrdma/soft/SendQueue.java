package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;

/**
 * A QP's send queue: a ring of pre-allocated {@link SendWqe}s between {@link #head()} (the oldest
 * WQE not yet completed) and {@link #tail()} (the next free slot), indices counting up for ever
 * (a slot is {@code index & mask}). Checks and copies posted WRs ({@code ibv_post_send(3)}),
 * resolves their lkeys and gathers/scatters their bytes. Nothing is allocated after construction.
 *
 * <p>Threads: under the QP's lock ({@link SoftQp#lock()}).
 */
public final class SendQueue {
    private final SoftPd pd;
    private final QpType type;
    private final WqeRing<SendWqe> ring;
    private final int maxWr;
    private final int maxSge;
    private final int maxInline;

    SendQueue(SoftPd pd, QpType type, int maxWr, int maxSge, int maxInline, SendWqe.Factory factory) {
        this.pd = pd;
        this.type = type;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        this.ring = new WqeRing<>(maxWr, i -> factory.create(maxSge, maxInline));
    }

    /** max_send_wr: how many WRs may be outstanding. */
    public int maxWr() {
        return maxWr;
    }

    /** max_send_sge. */
    public int maxSge() {
        return maxSge;
    }

    /** max_inline_data, bytes. */
    public int maxInline() {
        return maxInline;
    }

    /** Index of the oldest WQE not yet completed. */
    public long head() {
        return ring.head();
    }

    /** Index of the next free slot (one past the newest WQE). */
    public long tail() {
        return ring.tail();
    }

    public boolean isEmpty() {
        return ring.isEmpty();
    }

    /** The WQE at {@code index} (between head and tail). */
    public SendWqe entry(long index) {
        return ring.entry(index);
    }

    /** Slots free for new WRs: max_send_wr minus those outstanding. */
    int free() {
        return (int) (maxWr - ring.outstanding());
    }

    /** Frees the head slot (its completion was generated); returns the WQE that was there. */
    SendWqe retireHead() {
        return ring.retireHead();
    }

    /** Forgets every WQE (the QP returned to RESET). */
    void clear() {
        ring.clear();
    }

    /**
     * Checks {@code w} (not its chain) against the queue's capabilities and the QP type and copies
     * it into the tail slot.
     *
     * @throws VerbsException as {@link #check}; ENOMEM when max_send_wr WRs are outstanding
     */
    void post(SendWr w) {
        check(w);
        if (ring.outstanding() >= maxWr) {
            throw new VerbsException(Errno.ENOMEM, "send queue full (" + maxWr + " WRs outstanding)");
        }
        copy(w);
    }

    /**
     * Checks {@code w} (not its chain) against the queue's capabilities and the QP type; changes
     * nothing. A WR that passes may be {@link #copy copied} while the queue has room.
     *
     * @throws VerbsException EINVAL for a malformed WR (num_sge, SGE lengths, opcode not allowed on
     *     the QP type, UD without an address handle of the QP's PD, inline data too long or with a
     *     READ/atomic, an atomic without one 8-byte SGE, a FLUSH or ATOMIC_WRITE with SGEs or a bad
     *     flush type/level/length, a BIND_MW with SGEs or a window or region of another device)
     */
    void check(SendWr w) {
        LocalMemory.checkSgList(w.sgList(), w.numSge(), maxSge, "send");
        checkOpcode(w.opcode());
        if (w.opcode() == WrOpcode.FLUSH || w.opcode() == WrOpcode.ATOMIC_WRITE) {
            checkPlacement(w);
        }
        if (type == QpType.UD && !(w.ah() instanceof SoftAh ah && ah.pd() == pd)) {
            throw new VerbsException(Errno.EINVAL, "a UD send needs an address handle of the QP's protection domain");
        }
        boolean inline = (w.sendFlags() & SendFlags.INLINE) != 0;
        if (inline && w.totalLength() > maxInline) {
            throw new VerbsException(Errno.EINVAL, "inline data of " + w.totalLength() + " bytes above max_inline_data " + maxInline);
        }
        if (inline && (w.opcode() == WrOpcode.RDMA_READ || w.opcode().isAtomic())) {
            throw new VerbsException(Errno.EINVAL, "INLINE is not allowed with " + w.opcode());
        }
        if (w.opcode().isAtomic() && (w.numSge() != 1 || w.sgList()[0].length() != 8)) {
            throw new VerbsException(Errno.EINVAL, "an atomic WR needs one SGE of 8 bytes");
        }
        if (w.opcode() == WrOpcode.BIND_MW) {
            checkBind(w);
        }
    }

    /** Copies a WR that passed {@link #check} into the tail slot; the caller made sure there is room. */
    void copy(SendWr w) {
        SendWqe q = ring.atTail();
        q.copyFrom(w);
        if ((w.sendFlags() & SendFlags.INLINE) != 0) {
            copyInline(w, q);
        }
        ring.advanceTail();
        if (q.bindMw != null) {
            q.bindMw.bindPosted(q.bindRkey);
        }
    }

    /**
     * A BIND_MW WR (rxe's {@code validate_send_wr}): no SGEs, a window of this device, a region of
     * this device or none (an address or length without a region: EINVAL, as {@code ibv_bind_mw}).
     */
    private void checkBind(SendWr w) {
        SoftResources r = pd.resources();
        if (w.numSge() != 0 || (w.sendFlags() & SendFlags.INLINE) != 0) {
            throw new VerbsException(Errno.EINVAL, "a BIND_MW WR carries no SGEs (num_sge " + w.numSge() + ") and no inline data");
        }
        if (!(w.mw() instanceof SoftMw mw) || !mw.belongsTo(r)) {
            throw new VerbsException(Errno.EINVAL, "bind_mw.mw is null or a window of another device");
        }
        var info = w.bindInfo();
        if (info.mr() == null ? info.addr() != 0 || info.length() != 0
                : !(info.mr() instanceof SoftMr mr) || mr.softPd().resources() != r) {
            throw new VerbsException(Errno.EINVAL, "bind_info.mr is of another device, or null with an address or length");
        }
    }

    private void checkOpcode(WrOpcode op) {
        boolean ok = switch (type) {
            case RC -> op.value() <= WrOpcode.ATOMIC_FETCH_AND_ADD.value() || op == WrOpcode.LOCAL_INV
                    || op == WrOpcode.BIND_MW || op == WrOpcode.SEND_WITH_INV || op == WrOpcode.FLUSH
                    || op == WrOpcode.ATOMIC_WRITE;
            // rxe's opcode table: local operations on RC and UC; SEND with Invalidate, FLUSH and
            // ATOMIC WRITE are RC only (IBTA table 38, Annex A19)
            case UC -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE
                    || op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.LOCAL_INV || op == WrOpcode.BIND_MW;
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
        };
        if (!ok) {
            throw new VerbsException(Errno.EINVAL, op + " is not allowed on a " + type + " QP");
        }
    }

    /**
     * FLUSH and ATOMIC_WRITE (IBTA Vol 1 Annex A19) carry no SGE and no inline data (their operands
     * are {@link SendWr#atomicWriteValue()} and {@link SendWr#flush}); a FLUSH names one or both
     * placement types, a level RANGE or MR and a length that fits the RETH's DMA length.
     */
    private static void checkPlacement(SendWr w) {
        if (w.numSge() != 0 || (w.sendFlags() & SendFlags.INLINE) != 0) {
            throw new VerbsException(Errno.EINVAL, w.opcode() + " carries no SGE and no inline data (num_sge "
                    + w.numSge() + ")");
        }
        if (w.opcode() == WrOpcode.FLUSH) {
            int t = w.flushType();
            if (t == 0 || (t & ~(SendWr.FLUSH_GLOBAL | SendWr.FLUSH_PERSISTENT)) != 0) {
                throw new VerbsException(Errno.EINVAL, "flush type " + t + " is not GLOBAL (1), PERSISTENT (2) or both");
            }
            if (w.flushLevel() != SendWr.FLUSH_RANGE && w.flushLevel() != SendWr.FLUSH_MR) {
                throw new VerbsException(Errno.EINVAL, "flush level " + w.flushLevel() + " is not RANGE (0) or MR (1)");
            }
            if (w.flushLength() < 0 || w.flushLength() > 1L << 31) {
                throw new VerbsException(Errno.EINVAL, "flush length " + w.flushLength() + " not in 0..2^31");
            }
        }
    }

    private static void copyInline(SendWr w, SendWqe q) {
        long off = 0;
        Sge[] sges = w.sgList();
        for (int i = 0; i < w.numSge(); i++) {
            Sge s = sges[i];
            if (s.length() == 0) {
                continue;
            }
            MemorySegment src = MemorySegment.ofAddress(s.addr()).reinterpret(s.length());
            MemorySegment.copy(src, 0, q.inline, off, s.length());
            off += s.length();
        }
        q.isInline = true;
        q.numSge = 0;
        q.resolved = true;
    }

    /**
     * Resolves the lkeys of a WQE's SGEs (once): each must name a valid region of the QP's PD whose
     * memory is still there and lie inside it; with {@code localWrite} (READ and atomic results) the
     * region needs LOCAL_WRITE.
     *
     * @return SUCCESS or LOC_PROT_ERR (bad key, other PD, deregistered, memory freed, out of bounds,
     *     no LOCAL_WRITE)
     */
    public WcStatus resolve(SendWqe w, boolean localWrite) {
        if (w.resolved) {
            return WcStatus.SUCCESS;
        }
        WcStatus st = LocalMemory.resolve(pd, w.numSge, w.sgeAddr, w.sgeLength, w.sgeLkey, w.sgeMr, localWrite);
        w.resolved = st == WcStatus.SUCCESS;
        return st;
    }

    /**
     * Copies {@code len} bytes of a resolved WQE's message, from message offset {@code msgOff}, into
     * {@code dst} at {@code dstOff}.
     *
     * @return false when the memory of one of its regions was freed (the WQE must then complete with
     *     LOC_PROT_ERR)
     */
    public boolean gather(SendWqe w, long msgOff, MemorySegment dst, long dstOff, int len) {
        if (len == 0) {
            return true;
        }
        if (w.isInline) {
            MemorySegment.copy(w.inline, msgOff, dst, dstOff, len);
            return true;
        }
        return LocalMemory.gather(w.numSge, w.sgeAddr, w.sgeLength, w.sgeMr, msgOff, dst, dstOff, len);
    }

    /**
     * Copies {@code len} bytes from {@code src} into a resolved WQE's SGEs (READ responses).
     *
     * @return false when the memory of one of its regions was freed
     */
    public boolean scatter(SendWqe w, long msgOff, MemorySegment src, long srcOff, int len) {
        return LocalMemory.scatter(w.numSge, w.sgeAddr, w.sgeLength, w.sgeMr, msgOff, src, srcOff, len);
    }
}
