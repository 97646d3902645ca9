package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * FLUSH Extended Transport Header flyweight, 4 bytes, big-endian (IBTA Vol 1 Annex A19.4.1, "Memory
 * Placement Extensions"; rxe: {@code struct rxe_feth} in {@code rxe_hdr.h}, Linux 6.2 and later):
 * carried by RC FLUSH (opcode 0x1C) before its RETH.
 *
 * <pre>
 * bits 31-6   reserved (0)
 * bits 5-4    SEL: selectivity level, {@link #SEL_RANGE} 0 (the RETH's range) or {@link #SEL_MR} 1 (the whole region)
 * bits 3-0    PLT: placement type, bit mask of {@link #PLT_GLOBAL} 1 (global visibility) and
 *             {@link #PLT_PERSISTENT} 2 (persistence)
 * </pre>
 *
 * The values are those of libibverbs' {@code IBV_FLUSH_RANGE}/{@code IBV_FLUSH_MR} and
 * {@code IBV_FLUSH_GLOBAL}/{@code IBV_FLUSH_PERSISTENT}.
 */
public final class Feth {
    /** Header length in bytes. */
    public static final int LENGTH = 4;
    /** Placement type bit: make the range globally visible ({@code IBV_FLUSH_GLOBAL}). */
    public static final int PLT_GLOBAL = 1;
    /** Placement type bit: make the range persistent ({@code IBV_FLUSH_PERSISTENT}). */
    public static final int PLT_PERSISTENT = 2;
    /** Selectivity: the RETH's VA and DMA length ({@code IBV_FLUSH_RANGE}). */
    public static final int SEL_RANGE = 0;
    /** Selectivity: the whole region the R_Key names; VA and DMA length are ignored ({@code IBV_FLUSH_MR}). */
    public static final int SEL_MR = 1;

    private static final int PLT_MASK = 0x0f;
    private static final int SEL_MASK = 0x30;
    private static final int SEL_SHIFT = 4;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+4)}. @return this */
    public Feth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** PLT, the placement type, 4 bits. */
    public int placementType() {
        return Be.i32(seg, off) & PLT_MASK;
    }

    /** SEL, the selectivity level, 2 bits. */
    public int selectivity() {
        return (Be.i32(seg, off) & SEL_MASK) >>> SEL_SHIFT;
    }

    /**
     * Writes the whole header: the reserved bits 0, SEL and PLT masked to their widths.
     *
     * @return this
     */
    public Feth set(int placementType, int selectivity) {
        Be.i32(seg, off, ((selectivity << SEL_SHIFT) & SEL_MASK) | (placementType & PLT_MASK));
        return this;
    }
}
