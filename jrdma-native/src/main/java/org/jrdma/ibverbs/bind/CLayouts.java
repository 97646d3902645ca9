package org.jrdma.ibverbs.bind;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@link MemoryLayout}s the way a C compiler lays out structs on the System V x86-64 ABI (and
 * every LP64 Linux ABI): each member at the next multiple of its alignment, the struct's size a
 * multiple of its largest member alignment. The padding is inserted here, so a layout is written as the
 * C declaration reads. Pure; any thread.
 */
public final class CLayouts {
    /** {@code uint8_t}, {@code char}. */
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    /** {@code uint16_t}. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT;
    /** {@code uint32_t}, {@code int}, enums. */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    /** {@code uint64_t}, {@code size_t}. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    /** A pointer (8 bytes on LP64). */
    public static final ValueLayout PTR = ValueLayout.ADDRESS;

    /** The prefix of an anonymous member's name (a C11 anonymous union): it has no name in C paths. */
    public static final String ANONYMOUS = "$";

    private CLayouts() {
    }

    /** A named member of type {@code layout}. */
    public static MemoryLayout m(String name, MemoryLayout layout) {
        return layout.withName(name);
    }

    /** {@code char name[n]} / {@code uint8_t name[n]}. */
    public static SequenceLayout bytes(String name, long n) {
        return MemoryLayout.sequenceLayout(n, U8).withName(name);
    }

    /** An opaque member of {@code size} bytes aligned to 8 ({@code pthread_mutex_t}, {@code pthread_cond_t}). */
    public static SequenceLayout opaque8(String name, long size) {
        return MemoryLayout.sequenceLayout(size / 8, U64).withName(name);
    }

    /** A struct of these members with C's padding; {@code tag} is its C type, e.g. {@code "struct ibv_wc"}. */
    public static StructLayout struct(String tag, MemoryLayout... members) {
        List<MemoryLayout> out = new ArrayList<>();
        long offset = 0;
        long maxAlign = 1;
        int pad = 0;
        for (MemoryLayout member : members) {
            long align = member.byteAlignment();
            if (offset % align != 0) {
                long p = align - offset % align;
                out.add(MemoryLayout.paddingLayout(p).withName(ANONYMOUS + "pad" + pad++));
                offset += p;
            }
            out.add(member);
            offset += member.byteSize();
            maxAlign = Math.max(maxAlign, align);
        }
        if (offset % maxAlign != 0) {
            out.add(MemoryLayout.paddingLayout(maxAlign - offset % maxAlign).withName(ANONYMOUS + "pad" + pad));
        }
        StructLayout s = MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new));
        return tag == null ? s : s.withName(tag);
    }

    /** A union of these members, its size rounded up to its alignment as C does. */
    public static MemoryLayout union(String tag, MemoryLayout... members) {
        UnionLayout u = MemoryLayout.unionLayout(members);
        long align = u.byteAlignment();
        if (u.byteSize() % align != 0) {
            u = MemoryLayout.unionLayout(concat(members,
                    MemoryLayout.paddingLayout((u.byteSize() / align + 1) * align).withName(ANONYMOUS + "pad")));
        }
        return tag == null ? u : u.withName(tag);
    }

    private static MemoryLayout[] concat(MemoryLayout[] a, MemoryLayout b) {
        MemoryLayout[] r = java.util.Arrays.copyOf(a, a.length + 1);
        r[a.length] = b;
        return r;
    }

    /** The byte offset of the member at this path of names (dotted paths into nested members). */
    public static long offset(MemoryLayout layout, String... path) {
        MemoryLayout.PathElement[] p = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            p[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(p);
    }
}
