package org.jrdma.verbs;

/**
 * A send work request, {@code struct ibv_send_wr} ({@code ibv_post_send(3)}). Mutable and reusable:
 * {@link QueuePair#postSend(SendWr)} copies it, so it may be changed and posted again at once.
 * Chain several with {@link #next(SendWr)}.
 */
public final class SendWr {
    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private Sge[] sgList = new Sge[0];
    private int numSge;
    private int immData;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private long atomicWriteValue;
    private long flushLength;
    private int flushType;
    private int flushLevel;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int invalidateRkey;
    private MemoryWindow mw;
    private int bindRkey;
    private final MwBindInfo bindInfo = new MwBindInfo();
    private SendWr next;

    public long wrId() {
        return wrId;
    }

    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    public SendWr opcode(WrOpcode opcode) {
        this.opcode = opcode;
        return this;
    }

    /** {@link SendFlags} bits. */
    public int sendFlags() {
        return sendFlags;
    }

    public SendWr sendFlags(int sendFlags) {
        this.sendFlags = sendFlags;
        return this;
    }

    /**
     * The gather list; only the first {@link #numSge()} entries are used. Their lengths add up to
     * the message length, at most 2^31 bytes (IBTA's largest message): a post with more is refused
     * with {@link VerbsException} EINVAL.
     */
    public Sge[] sgList() {
        return sgList;
    }

    /** Uses all of {@code sges}. */
    public SendWr sgList(Sge... sges) {
        this.sgList = sges;
        this.numSge = sges.length;
        return this;
    }

    public int numSge() {
        return numSge;
    }

    /** Uses the first {@code n} entries of the gather list. */
    public SendWr numSge(int n) {
        this.numSge = n;
        return this;
    }

    /** Immediate data (32 bits, host order) for SEND_WITH_IMM and RDMA_WRITE_WITH_IMM. */
    public int immData() {
        return immData;
    }

    public SendWr immData(int immData) {
        this.immData = immData;
        return this;
    }

    /** Remote virtual address for RDMA and atomic operations ({@code wr.rdma.remote_addr}). */
    public long remoteAddr() {
        return remoteAddr;
    }

    public SendWr remoteAddr(long remoteAddr) {
        this.remoteAddr = remoteAddr;
        return this;
    }

    /** Remote key for RDMA and atomic operations. */
    public int rkey() {
        return rkey;
    }

    public SendWr rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** Compare operand (CMP_AND_SWP) or addend (FETCH_AND_ADD), 64 bits. */
    public long compareAdd() {
        return compareAdd;
    }

    public SendWr compareAdd(long compareAdd) {
        this.compareAdd = compareAdd;
        return this;
    }

    /** Swap operand of CMP_AND_SWP, 64 bits. */
    public long swap() {
        return swap;
    }

    public SendWr swap(long swap) {
        this.swap = swap;
        return this;
    }

    /** Sets the remote address and rkey of an RDMA operation: {@code wr.rdma}. */
    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /** Sets an atomic operation's operands: {@code wr.atomic}. */
    public SendWr atomic(long remoteAddr, int rkey, long compareAdd, long swap) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * The 8 bytes an {@link WrOpcode#ATOMIC_WRITE} writes ({@code ibv_wr_atomic_write}'s
     * {@code atomic_wr}): the value's bytes in this host's byte order, as {@code memcpy} from a
     * {@code uint64_t} would take them, go on the wire unchanged and land at the responder as they
     * are (rxe), so a peer of the same byte order reads the same long.
     */
    public long atomicWriteValue() {
        return atomicWriteValue;
    }

    /**
     * Sets an {@link WrOpcode#ATOMIC_WRITE}: the 8-byte-aligned remote address, its rkey and the value
     * ({@link #atomicWriteValue()}). The WR carries no SGE (num_sge 0).
     */
    public SendWr atomicWrite(long remoteAddr, int rkey, long value) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.atomicWriteValue = value;
        return this;
    }

    /** Placement type bit of a FLUSH: global visibility ({@code IBV_FLUSH_GLOBAL} = 1). */
    public static final int FLUSH_GLOBAL = 1;
    /** Placement type bit of a FLUSH: persistence ({@code IBV_FLUSH_PERSISTENT} = 2). */
    public static final int FLUSH_PERSISTENT = 2;
    /** Selectivity of a FLUSH: the range remoteAddr .. remoteAddr + length ({@code IBV_FLUSH_RANGE} = 0). */
    public static final int FLUSH_RANGE = 0;
    /** Selectivity of a FLUSH: the whole region of the rkey ({@code IBV_FLUSH_MR} = 1). */
    public static final int FLUSH_MR = 1;

    /** Bytes a {@link WrOpcode#FLUSH} of level {@link #FLUSH_RANGE} covers, 0..2^31. */
    public long flushLength() {
        return flushLength;
    }

    /** The placement type of a FLUSH: {@link #FLUSH_GLOBAL}, {@link #FLUSH_PERSISTENT} or both. */
    public int flushType() {
        return flushType;
    }

    /** The selectivity level of a FLUSH: {@link #FLUSH_RANGE} or {@link #FLUSH_MR}. */
    public int flushLevel() {
        return flushLevel;
    }

    /**
     * Sets a {@link WrOpcode#FLUSH} ({@code ibv_wr_flush(qp, rkey, remote_addr, len, type, level)};
     * IBTA Vol 1 Annex A19): the responder makes the earlier RDMA WRITEs and ATOMIC WRITEs into the
     * range (or the whole region) globally visible or persistent before it answers. The WR carries no
     * SGE; a post with a type outside {GLOBAL, PERSISTENT} (or none), a level other than RANGE/MR or a
     * length above 2^31 fails with EINVAL.
     */
    public SendWr flush(long remoteAddr, int rkey, long length, int type, int level) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.flushLength = length;
        this.flushType = type;
        this.flushLevel = level;
        return this;
    }

    /** The address handle of a UD send ({@code wr.ud.ah}). */
    public AddressHandle ah() {
        return ah;
    }

    /** The destination QPN of a UD send, 24 bits. */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** The Q_Key of a UD send. */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** Sets {@code wr.ud}. */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * The rkey (or lkey) that {@link WrOpcode#LOCAL_INV} invalidates locally, or that the IETH of a
     * {@link WrOpcode#SEND_WITH_INV} asks the responder to invalidate ({@code wr.invalidate_rkey}, a
     * union with imm_data in C; a field of its own here).
     */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    public SendWr invalidateRkey(int invalidateRkey) {
        this.invalidateRkey = invalidateRkey;
        return this;
    }

    /** The window a {@link WrOpcode#BIND_MW} binds ({@code wr.bind_mw.mw}), or null. */
    public MemoryWindow mw() {
        return mw;
    }

    /**
     * The window's new rkey ({@code wr.bind_mw.rkey}): only its low 8 bits count, they replace the
     * window's key byte ({@code ibv_inc_rkey(mw.rkey())} is the usual choice).
     */
    public int bindRkey() {
        return bindRkey;
    }

    /** What a {@link WrOpcode#BIND_MW} binds to ({@code wr.bind_mw.bind_info}); this WR's own, to fill in. */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }

    /**
     * Sets {@code wr.bind_mw}: the window, its new rkey and (copied) what it binds to. The WR must have no
     * SGEs ({@code num_sge} 0, as rxe's {@code validate_send_wr} demands).
     */
    public SendWr bindMw(MemoryWindow mw, int rkey, MwBindInfo info) {
        this.mw = mw;
        this.bindRkey = rkey;
        this.bindInfo.set(info.mr(), info.addr(), info.length(), info.mwAccessFlags());
        return this;
    }

    /** {@code ibv_inc_rkey(3)}: {@code rkey} with its low 8 bits (the key) incremented, the upper 24 kept. */
    public static int incRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }

    /** The next WR of a chain, or null. */
    public SendWr next() {
        return next;
    }

    public SendWr next(SendWr next) {
        this.next = next;
        return this;
    }

    /** The total bytes of the gather list. */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) {
            n += sgList[i].length();
        }
        return n;
    }
}
