package org.jrdma.nvmeof.wire;

/**
 * The command opcodes the host uses (NVMe Base 2.0 §5 Figure 138 admin commands, NVM Command Set 1.0
 * Figure 17 I/O commands; NVMe-oF 1.1 §6 Figure 19 Fabrics command types; Linux {@code nvme.h}).
 */
public final class Opcodes {
    /** Admin: Get Log Page. */
    public static final int ADMIN_GET_LOG_PAGE = 0x02;
    /** Admin: Identify. */
    public static final int ADMIN_IDENTIFY = 0x06;
    /** Admin: Abort. */
    public static final int ADMIN_ABORT = 0x08;
    /** Admin: Set Features. */
    public static final int ADMIN_SET_FEATURES = 0x09;
    /** Admin: Get Features. */
    public static final int ADMIN_GET_FEATURES = 0x0a;
    /** Admin: Asynchronous Event Request. */
    public static final int ADMIN_ASYNC_EVENT = 0x0c;
    /** Admin: Keep Alive. */
    public static final int ADMIN_KEEP_ALIVE = 0x18;
    /** Fabrics commands, on any queue; FCTYPE in byte 4. */
    public static final int FABRICS = 0x7f;

    /** I/O: Flush. */
    public static final int IO_FLUSH = 0x00;
    /** I/O: Write. */
    public static final int IO_WRITE = 0x01;
    /** I/O: Read. */
    public static final int IO_READ = 0x02;
    /** I/O: Write Zeroes. */
    public static final int IO_WRITE_ZEROES = 0x08;
    /** I/O: Dataset Management. */
    public static final int IO_DSM = 0x09;

    /** Fabrics command type Property Set. */
    public static final int FCTYPE_PROPERTY_SET = 0x00;
    /** Fabrics command type Connect. */
    public static final int FCTYPE_CONNECT = 0x01;
    /** Fabrics command type Property Get. */
    public static final int FCTYPE_PROPERTY_GET = 0x04;

    /** Identify CNS 00h: the namespace data structure of NSID. */
    public static final int CNS_NAMESPACE = 0x00;
    /** Identify CNS 01h: the controller data structure. */
    public static final int CNS_CONTROLLER = 0x01;
    /** Identify CNS 02h: the active namespace ID list (NSIDs greater than NSID). */
    public static final int CNS_ACTIVE_NS_LIST = 0x02;

    /** Feature 07h, Number of Queues. */
    public static final int FEAT_NUM_QUEUES = 0x07;
    /** Feature 0Fh, Keep Alive Timer. */
    public static final int FEAT_KATO = 0x0f;

    /** Log page 70h, the discovery log (NVMe-oF 1.1 §5.3). */
    public static final int LOG_DISCOVERY = 0x70;

    private Opcodes() {
    }
}
