package org.jrdma.nvmeof.wire;

/**
 * NVMe status values as a completion's status field carries them without its phase tag (Linux's
 * {@code le16_to_cpu(cqe->status) >> 1}, {@link Cqe#status()}): SC in bits 7:0, SCT in bits 10:8, DNR
 * in bit 14. Codes of NVMe Base 2.0 Figure 101 (generic, SCT 0h), Figure 102-103 (command specific,
 * SCT 1h), NVMe-oF 1.1 Figure 18 (the Fabrics command specific codes), NVM Command Set 1.0 Figure 23
 * (LBA Out of Range); the names are the specification's, the values Linux's {@code nvme.h}
 * {@code NVME_SC_*}.
 */
public final class Status {
    /** Do Not Retry: the same command would fail again. */
    public static final int DNR = 1 << 14;

    public static final int SUCCESS = 0x000;
    public static final int INVALID_OPCODE = 0x001;
    public static final int INVALID_FIELD = 0x002;
    public static final int COMMAND_ID_CONFLICT = 0x003;
    public static final int DATA_TRANSFER_ERROR = 0x004;
    public static final int INTERNAL_ERROR = 0x006;
    public static final int ABORT_REQUESTED = 0x007;
    public static final int INVALID_NAMESPACE = 0x00b;
    public static final int COMMAND_SEQUENCE_ERROR = 0x00c;
    /** Data SGL Length Invalid: the SGL describes less (or more) data than the command transfers. */
    public static final int SGL_DATA_LENGTH_INVALID = 0x00f;
    /** SGL Descriptor Type Invalid: a descriptor type (or sub type) the controller does not support. */
    public static final int SGL_DESCRIPTOR_TYPE_INVALID = 0x011;
    /** SGL Offset Invalid: an in-capsule data block's offset and length fall outside the capsule's data. */
    public static final int SGL_OFFSET_INVALID = 0x016;
    public static final int KEEP_ALIVE_TIMEOUT_INVALID = 0x01a;
    /** LBA Out of Range (NVM command set, generic status 80h). */
    public static final int LBA_OUT_OF_RANGE = 0x080;

    /** SCT 1h SC 05h: more Asynchronous Event Requests outstanding than AERL + 1. */
    public static final int AER_LIMIT_EXCEEDED = 0x105;
    /** SCT 1h SC 09h: Get Log Page of a log the controller does not have. */
    public static final int INVALID_LOG_PAGE = 0x109;
    /** SCT 1h SC 80h: Connect with a RECFMT the controller does not support. */
    public static final int CONNECT_INCOMPATIBLE_FORMAT = 0x180;
    /** SCT 1h SC 81h: Connect of a queue that is connected already, or no controller can be had. */
    public static final int CONNECT_CONTROLLER_BUSY = 0x181;
    /** SCT 1h SC 82h: a Connect field is invalid; DW0 names it (IATTR bit 16, IPO bits 15:0). */
    public static final int CONNECT_INVALID_PARAMETERS = 0x182;
    /** SCT 1h SC 84h: the host is not allowed to connect. */
    public static final int CONNECT_INVALID_HOST = 0x184;

    private Status() {
    }

    /** The CQE status field (phase tag 0) of {@code status}. */
    public static int field(int status) {
        return status << 1;
    }

    /**
     * DW0 of a Connect Invalid Parameters response (NVMe-oF 1.1 Figure 22): IATTR (bit 16) 0 the
     * parameter is in the SQE, 1 in the Connect data; IPO (bits 15:0) its byte offset there.
     */
    public static int invalidParameter(boolean inData, int offset) {
        return (inData ? 1 << 16 : 0) | (offset & 0xffff);
    }
}
