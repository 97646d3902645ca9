package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * A completion queue entry, the 16-byte response capsule (NVMe Base 2.0 §4.2.1 "Completion Queue
 * Entry", Figure 89; NVMe-oF 1.1 §2.2; Linux {@code struct nvme_completion}): a flyweight, little endian.
 *
 * <pre>
 * 0  DW0, 4 DW1  command specific (a Fabrics response: 8 bytes of result)
 * 8  SQHD u16    submission queue head pointer
 * 10 SQID u16    submission queue identifier
 * 12 CID  u16    command identifier
 * 14 STATUS u16  bit 0 phase tag (unused over fabrics), bits 8:1 SC, 11:9 SCT, 13:12 CRD, 14 M, 15 DNR
 * </pre>
 */
public final class Cqe {
    public static final int SIZE = 16;
    /** SCT 0, generic command status. */
    public static final int SCT_GENERIC = 0;
    /** SCT 1, command specific status. */
    public static final int SCT_COMMAND_SPECIFIC = 1;

    private MemorySegment s;
    private long o;

    public Cqe wrap(MemorySegment seg, long off) {
        if (off < 0 || off + SIZE > seg.byteSize()) {
            throw new IndexOutOfBoundsException("CQE at " + off + " in " + seg.byteSize() + " bytes");
        }
        this.s = seg;
        this.o = off;
        return this;
    }

    public Cqe clear() {
        s.asSlice(o, SIZE).fill((byte) 0);
        return this;
    }

    public int dw0() {
        return Le.u32(s, o);
    }

    public int dw1() {
        return Le.u32(s, o + 4);
    }

    /** DW0 and DW1 as one value (a Property Get of an 8-byte property). */
    public long result() {
        return Le.u64(s, o);
    }

    public Cqe result(long v) {
        Le.u64(s, o, v);
        return this;
    }

    public int sqHead() {
        return Le.u16(s, o + 8);
    }

    public Cqe sqHead(int v) {
        Le.u16(s, o + 8, v);
        return this;
    }

    public int sqId() {
        return Le.u16(s, o + 10);
    }

    public Cqe sqId(int v) {
        Le.u16(s, o + 10, v);
        return this;
    }

    public int commandId() {
        return Le.u16(s, o + 12);
    }

    public Cqe commandId(int v) {
        Le.u16(s, o + 12, v);
        return this;
    }

    /** The status field with its phase tag (bit 0). */
    public int statusField() {
        return Le.u16(s, o + 14);
    }

    public Cqe statusField(int v) {
        Le.u16(s, o + 14, v);
        return this;
    }

    /** The status without the phase tag, as Linux's {@code le16_to_cpu(cqe->status) >> 1}: SC in 7:0, SCT in 10:8, DNR bit 14. */
    public int status() {
        return statusField() >>> 1;
    }

    /** Status code (SC). */
    public int statusCode() {
        return status() & 0xff;
    }

    /** Status code type (SCT). */
    public int statusCodeType() {
        return status() >>> 8 & 0x7;
    }

    /** Do not retry. */
    public boolean dnr() {
        return (statusField() & 0x8000) != 0;
    }

    /** Success: SCT 0 and SC 0. */
    public boolean ok() {
        return (status() & 0x7ff) == 0;
    }
}
