package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * An SGL descriptor, 16 bytes (NVMe Base 2.0 §4.1.2.2 "SGL descriptor types", Figures 115-121; NVMe-oF 1.1
 * RDMA transport binding §3.3 "keyed SGL data block"; Linux {@code struct nvme_keyed_sgl_desc},
 * {@code struct nvme_sgl_desc}): a flyweight, little endian. Byte 15 is the identifier: type in bits
 * 7:4, sub type in bits 3:0.
 *
 * <pre>
 * keyed data block (type 4): 0 ADDRESS u64, 8 LENGTH u24, 11 KEY u32 (the rkey), 15 identifier
 * data block (type 0):       0 ADDRESS u64, 8 LENGTH u32, 12 reserved 3,       15 identifier
 * </pre>
 *
 * <p>Over RDMA the host describes its memory with a keyed data block: the controller moves the data
 * with RDMA READ (host to controller) or RDMA WRITE (controller to host) at ADDRESS with KEY. Sub type
 * {@link #SUBTYPE_INVALIDATE} (0xF) asks the controller to invalidate KEY with its response (a
 * SEND_WITH_INV). In-capsule data is a data block with sub type {@link #SUBTYPE_OFFSET}: ADDRESS is the
 * offset of the data in the capsule after the SQE.
 */
public final class Sgl {
    public static final int SIZE = 16;
    /** Type 0h, SGL data block. */
    public static final int TYPE_DATA_BLOCK = 0x0;
    /** Type 4h, keyed SGL data block. */
    public static final int TYPE_KEYED_DATA_BLOCK = 0x4;
    /** Sub type 0h: ADDRESS is a memory address. */
    public static final int SUBTYPE_ADDRESS = 0x0;
    /** Sub type 1h: ADDRESS is an offset into the capsule (in-capsule data). */
    public static final int SUBTYPE_OFFSET = 0x1;
    /** Sub type Fh, transport specific; over RDMA "invalidate the key" ({@code NVME_SGL_FMT_INVALIDATE}). */
    public static final int SUBTYPE_INVALIDATE = 0xf;
    /** The largest LENGTH of a keyed data block (24 bits). */
    public static final int MAX_KEYED_LENGTH = 0xffffff;

    private MemorySegment s;
    private long o;

    public Sgl wrap(MemorySegment seg, long off) {
        if (off < 0 || off + SIZE > seg.byteSize()) {
            throw new IndexOutOfBoundsException("SGL descriptor at " + off + " in " + seg.byteSize() + " bytes");
        }
        this.s = seg;
        this.o = off;
        return this;
    }

    public long address() {
        return Le.u64(s, o);
    }

    /** The descriptor's identifier, byte 15. */
    public int identifier() {
        return Le.u8(s, o + 15);
    }

    public int type() {
        return identifier() >>> 4;
    }

    public int subType() {
        return identifier() & 0xf;
    }

    /** LENGTH: 24 bits in a keyed data block, 32 otherwise. */
    public long length() {
        return type() == TYPE_KEYED_DATA_BLOCK ? Le.u24(s, o + 8) : Le.u32(s, o + 8) & 0xffffffffL;
    }

    /** KEY of a keyed data block (0 for other types). */
    public int key() {
        return type() == TYPE_KEYED_DATA_BLOCK ? Le.u32(s, o + 11) : 0;
    }

    /**
     * Makes this a keyed data block.
     *
     * @param length bytes, 0..{@link #MAX_KEYED_LENGTH}
     * @param subType {@link #SUBTYPE_ADDRESS} or {@link #SUBTYPE_INVALIDATE}
     * @throws IllegalArgumentException for a length out of range
     */
    public Sgl keyed(long address, int length, int key, int subType) {
        if (length < 0 || length > MAX_KEYED_LENGTH) {
            throw new IllegalArgumentException("keyed SGL length " + length + " not in 0..0xffffff");
        }
        Le.u64(s, o, address);
        Le.u24(s, o + 8, length);
        Le.u32(s, o + 11, key);
        Le.u8(s, o + 15, TYPE_KEYED_DATA_BLOCK << 4 | (subType & 0xf));
        return this;
    }

    /** No data: a keyed data block of length 0, key 0, as Linux's host sends ({@code nvme_rdma_set_sg_null}). */
    public Sgl none() {
        return keyed(0, 0, 0, SUBTYPE_ADDRESS);
    }

    /** In-capsule data of {@code length} bytes at {@code offset} after the SQE (data block, sub type offset). */
    public Sgl inCapsule(long offset, int length) {
        Le.u64(s, o, offset);
        Le.u32(s, o + 8, length);
        Le.u24(s, o + 12, 0);
        Le.u8(s, o + 15, TYPE_DATA_BLOCK << 4 | SUBTYPE_OFFSET);
        return this;
    }
}
