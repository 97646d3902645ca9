package org.jrdma.nvmeof.wire;

/**
 * The controller properties the host reads and writes with Property Get/Set (NVMe Base 2.0 §3.1.3,
 * Figure 33 offsets; Figures 36 CAP, 37 VS, 43 CC, 44 CSTS; Linux {@code nvme.h} {@code NVME_REG_*},
 * {@code NVME_CC_*}, {@code NVME_CSTS_*}).
 */
public final class Properties {
    /** Controller Capabilities, 8 bytes. */
    public static final int CAP = 0x00;
    /** Version, 4 bytes. */
    public static final int VS = 0x08;
    /** Controller Configuration, 4 bytes. */
    public static final int CC = 0x14;
    /** Controller Status, 4 bytes. */
    public static final int CSTS = 0x1c;

    /** CC.EN, bit 0. */
    public static final int CC_EN = 1;
    /** CC.SHN = 01b normal shutdown, bits 15:14. */
    public static final int CC_SHN_NORMAL = 1 << 14;
    /** CC.SHN mask. */
    public static final int CC_SHN_MASK = 3 << 14;
    /** CC.IOSQES = 6 (64-byte SQEs), bits 19:16. */
    public static final int CC_IOSQES = 6 << 16;
    /** CC.IOCQES = 4 (16-byte CQEs), bits 23:20. */
    public static final int CC_IOCQES = 4 << 20;
    /** CSTS.RDY, bit 0. */
    public static final int CSTS_RDY = 1;
    /** CSTS.CFS (controller fatal status), bit 1. */
    public static final int CSTS_CFS = 1 << 1;
    /** CSTS.SHST mask, bits 3:2. */
    public static final int CSTS_SHST_MASK = 3 << 2;
    /** CSTS.SHST = 10b, shutdown processing complete. */
    public static final int CSTS_SHST_CMPLT = 2 << 2;

    private Properties() {
    }

    /** CAP.MQES: the largest queue, 0's based. */
    public static int capMqes(long cap) {
        return (int) (cap & 0xffff);
    }

    /** CAP.TO: the worst time from CC.EN to CSTS.RDY, in 500 ms units. */
    public static int capTimeout(long cap) {
        return (int) (cap >>> 24 & 0xff);
    }

    /** CAP.MPSMIN: the smallest memory page size, 2^(12 + MPSMIN) bytes. */
    public static int capMpsmin(long cap) {
        return (int) (cap >>> 48 & 0xf);
    }

    /** VS as "major.minor[.tertiary]", as nvme-cli prints the version. */
    public static String version(int vs) {
        int ter = vs & 0xff;
        return (vs >>> 16) + "." + (vs >>> 8 & 0xff) + (ter != 0 ? "." + ter : "");
    }
}
