package org.jrdma.ibverbs;

import org.agrona.collections.Int2ObjectHashMap;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The registered MRs of a context by lkey, for the check every SGE passes before it goes to the
 * driver: a scatter/gather entry must lie inside the MR its lkey names (libibverbs does not check; an
 * inline send would make the library read outside the buffer, a receive the device write outside
 * it). Lookups allocate nothing (Agrona's int map). Any thread: its own monitor guards the map
 * (taken after the QP's post lock; nothing is called while holding it).
 */
final class MrTable {
    private final Int2ObjectHashMap<IbvMr> byLkey = new Int2ObjectHashMap<>();

    synchronized void put(IbvMr mr) {
        byLkey.put(mr.lkey(), mr);
    }

    synchronized void remove(IbvMr mr) {
        byLkey.remove(mr.lkey(), mr);
    }

    /**
     * Checks that {@code [addr, addr + length)} is inside the MR of {@code lkey}.
     *
     * @throws VerbsException EINVAL naming the WR and SGE index and the field
     */
    synchronized void check(long addr, int length, int lkey, String call, int wr, int sge) {
        if (length == 0) {
            return;
        }
        IbvMr mr = byLkey.get(lkey);
        if (mr == null) {
            throw new VerbsException(Errno.EINVAL, call + ": wr " + wr + " sg_list[" + sge + "].lkey 0x"
                    + Integer.toHexString(lkey) + " is no memory region of this context");
        }
        long len = Integer.toUnsignedLong(length);
        if (addr < mr.addr() || addr + len > mr.addr() + mr.length() || addr + len < addr) {
            throw new VerbsException(Errno.EINVAL, call + ": wr " + wr + " sg_list[" + sge + "] [0x"
                    + Long.toHexString(addr) + ", +" + len + ") is outside its memory region [0x"
                    + Long.toHexString(mr.addr()) + ", +" + mr.length() + ")");
        }
    }
}
