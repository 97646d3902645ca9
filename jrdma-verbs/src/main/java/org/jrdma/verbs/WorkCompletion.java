package org.jrdma.verbs;

/**
 * One work completion, {@code struct ibv_wc} ({@code ibv_poll_cq(3)}). Mutable and reusable:
 * {@link CompletionQueue#poll(WorkCompletion[])} overwrites it.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immData;
    private int qpNum;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;
    private long completionTs;

    /** The wr_id of the work request that completed. */
    public long wrId() {
        return wrId;
    }

    /** SUCCESS, or why the work request failed. */
    public WcStatus status() {
        return status;
    }

    /** What completed; only meaningful when {@link #status()} is SUCCESS for receives. */
    public WcOpcode opcode() {
        return opcode;
    }

    /** A provider-specific error detail (jrdma: the AETH syndrome of a NAK, else 0). */
    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes transferred: received bytes for receives, read bytes for RDMA READ. */
    public int byteLen() {
        return byteLen;
    }

    /** The immediate data (32 bits, in host order as libibverbs' {@code be32toh(wc.imm_data)}); valid when {@link #wcFlags()} has WITH_IMM. */
    public int immData() {
        return immData;
    }

    /**
     * The rkey a peer's SEND_WITH_INV invalidated ({@code wc.invalidated_rkey}, a union with imm_data
     * in C: the same field here); valid when {@link #wcFlags()} has {@link WcFlags#WITH_INV}.
     */
    public int invalidatedRkey() {
        return immData;
    }

    /** The local QPN (24 bits). */
    public int qpNum() {
        return qpNum;
    }

    /** The remote QPN (UD receives). */
    public int srcQp() {
        return srcQp;
    }

    /** {@link WcFlags} bits. */
    public int wcFlags() {
        return wcFlags;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int slid() {
        return slid;
    }

    public int sl() {
        return sl;
    }

    /**
     * When the completion was written into its CQ, on the provider's clock (the software providers:
     * {@code System.nanoTime()}); set only for CQs created with
     * {@link WcExFlags#WITH_COMPLETION_TIMESTAMP} or {@link WcExFlags#WITH_COMPLETION_TIMESTAMP_WALLCLOCK},
     * read through {@link CqEx#readCompletionTs()}.
     */
    public long completionTs() {
        return completionTs;
    }

    /** Sets {@link #completionTs()} (for providers). @return this */
    public WorkCompletion completionTs(long ts) {
        this.completionTs = ts;
        return this;
    }

    /** Fills every field at once (for providers). */
    public WorkCompletion set(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int qpNum,
                              int srcQp, int wcFlags, int vendorErr) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.immData = immData;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.vendorErr = vendorErr;
        this.pkeyIndex = 0;
        this.slid = 0;
        this.sl = 0;
        return this;
    }

    /** Copies another completion's fields into this one. */
    public WorkCompletion copyFrom(WorkCompletion o) {
        set(o.wrId, o.status, o.opcode, o.byteLen, o.immData, o.qpNum, o.srcQp, o.wcFlags, o.vendorErr);
        this.pkeyIndex = o.pkeyIndex;
        this.slid = o.slid;
        this.sl = o.sl;
        this.completionTs = o.completionTs;
        return this;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
                + ", qpNum=" + qpNum + ((wcFlags & WcFlags.WITH_IMM) != 0 ? ", imm=0x" + Integer.toHexString(immData) : "")
                + ((wcFlags & WcFlags.WITH_INV) != 0 ? ", invalidated=0x" + Integer.toHexString(immData) : "")
                + (vendorErr != 0 ? ", vendorErr=0x" + Integer.toHexString(vendorErr) : "") + "]";
    }
}
