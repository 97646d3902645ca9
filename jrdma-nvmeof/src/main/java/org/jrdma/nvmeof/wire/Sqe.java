package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * A submission queue entry, the 64 bytes a command capsule starts with (NVMe Base 2.0 §4.2 "Submission
 * Queue Entry", Figure 88; NVMe-oF 1.1 §2.1 command capsule; Linux {@code struct nvme_common_command}):
 * a flyweight over 64 bytes of a segment, little endian. Reused; {@link #clear()} before filling.
 *
 * <pre>
 * 0  OPC   u8   opcode
 * 1  FUSE/PSDT u8 bits 1:0 fused operation, bits 7:6 PSDT (01b: SGLs, metadata a buffer; required over fabrics)
 * 2  CID   u16  command identifier
 * 4  NSID  u32  namespace identifier
 * 8  CDW2, 12 CDW3
 * 16 MPTR  u64  metadata pointer
 * 24 DPTR  16 bytes: SGL descriptor 1 ({@link Sgl})
 * 40 CDW10 .. 60 CDW15
 * </pre>
 *
 * <p>The Fabrics commands (opcode 0x7f) reuse bytes 4 (FCTYPE) and 40.. for their own fields
 * ({@link Fabrics}).
 */
public final class Sqe {
    /** Bytes of an SQE. */
    public static final int SIZE = 64;
    /** Byte 1, PSDT 01b: the data pointer is an SGL, the metadata pointer a contiguous buffer. */
    public static final int FLAGS_SGL = 0x40;
    /** Offset of the data pointer (SGL1). */
    public static final int DPTR = 24;

    private MemorySegment s;
    private long o;

    /** Points at the SQE at {@code off} of {@code seg} (64 bytes). */
    public Sqe wrap(MemorySegment seg, long off) {
        if (off < 0 || off + SIZE > seg.byteSize()) {
            throw new IndexOutOfBoundsException("SQE at " + off + " in " + seg.byteSize() + " bytes");
        }
        this.s = seg;
        this.o = off;
        return this;
    }

    public MemorySegment segment() {
        return s;
    }

    public long offset() {
        return o;
    }

    /** Zeroes the 64 bytes. */
    public Sqe clear() {
        s.asSlice(o, SIZE).fill((byte) 0);
        return this;
    }

    public int opcode() {
        return Le.u8(s, o);
    }

    public Sqe opcode(int v) {
        Le.u8(s, o, v);
        return this;
    }

    /** Byte 1: FUSE and PSDT. */
    public int flags() {
        return Le.u8(s, o + 1);
    }

    public Sqe flags(int v) {
        Le.u8(s, o + 1, v);
        return this;
    }

    public int commandId() {
        return Le.u16(s, o + 2);
    }

    public Sqe commandId(int v) {
        Le.u16(s, o + 2, v);
        return this;
    }

    public int nsid() {
        return Le.u32(s, o + 4);
    }

    public Sqe nsid(int v) {
        Le.u32(s, o + 4, v);
        return this;
    }

    /** Command dword {@code n}, 0..15 (CDW0 is opcode, flags, CID; CDW1 the NSID). */
    public int cdw(int n) {
        check(n);
        return Le.u32(s, o + 4L * n);
    }

    public Sqe cdw(int n, int v) {
        check(n);
        Le.u32(s, o + 4L * n, v);
        return this;
    }

    private static void check(int n) {
        if (n < 0 || n > 15) {
            throw new IndexOutOfBoundsException("command dword " + n + " not in 0..15");
        }
    }

    /** CDW10 and CDW11 as one 64-bit value (the starting LBA of Read and Write). */
    public long cdw10and11() {
        return Le.u64(s, o + 40);
    }

    public Sqe cdw10and11(long v) {
        Le.u64(s, o + 40, v);
        return this;
    }

    public long metadataPointer() {
        return Le.u64(s, o + 16);
    }

    /** Points {@code sgl} at this SQE's SGL1 (bytes 24..39). */
    public Sgl sgl1(Sgl sgl) {
        return sgl.wrap(s, o + DPTR);
    }
}
