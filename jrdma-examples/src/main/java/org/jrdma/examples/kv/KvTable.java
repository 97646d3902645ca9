package org.jrdma.examples.kv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The server's side of the table ({@link KvLayout}) over a segment of {@code buckets × SLOT} bytes.
 * PUTs (from whichever server thread) serialize on this object's monitor; RDMA clients read the
 * segment meanwhile without any lock, and the TCP server's GETs take the monitor.
 */
final class KvTable {
    /** PUT's status: stored. */
    static final byte OK = 0;
    /** PUT's status: every slot of the key's probe sequence holds another key. */
    static final byte FULL = 1;
    /** PUT's status: key empty or longer than {@link KvLayout#MAX_KEY}, or value longer than {@link KvLayout#MAX_VALUE}. */
    static final byte TOO_LONG = 2;

    final MemorySegment segment;
    final int buckets;

    KvTable(MemorySegment segment, int buckets) {
        this.segment = segment;
        this.buckets = buckets;
        segment.fill((byte) 0);
        for (int i = 0; i < buckets; i++) {
            KvLayout.store(slot(i), new byte[0], new byte[0]);    // empty, with a valid CRC
        }
    }

    MemorySegment slot(int i) {
        return segment.asSlice((long) i * KvLayout.SLOT, KvLayout.SLOT);
    }

    /** The slot a PUT of {@code key} rewrites: where it is, else the first empty one; -1 when full. */
    int slotFor(byte[] key) {
        int b = KvLayout.bucket(key, buckets);
        for (int p = 0; p < KvLayout.PROBES; p++) {
            int i = (b + p) % buckets;
            MemorySegment s = slot(i);
            if (KvLayout.empty(s) || KvLayout.holds(s, key)) {
                return i;
            }
        }
        return -1;
    }

    synchronized byte put(byte[] key, byte[] value) {
        if (key.length == 0 || key.length > KvLayout.MAX_KEY || value.length > KvLayout.MAX_VALUE) {
            return TOO_LONG;
        }
        int i = slotFor(key);
        if (i < 0) {
            return FULL;
        }
        KvLayout.store(slot(i), key, value);
        return OK;
    }

    synchronized byte[] get(byte[] key) {
        int b = KvLayout.bucket(key, buckets);
        byte[][] v = new byte[1][];
        for (int p = 0; p < KvLayout.PROBES; p++) {
            switch (KvLayout.look(slot((b + p) % buckets), key, v)) {
                case FOUND:
                    return v[0];
                case EMPTY:
                    return null;
                default:
                    break;
            }
        }
        return null;
    }

    /** A PUT request's bytes: [1][keyLen][valLen][key][value] (also the TCP form, with GET = 2 and no value). */
    static byte[] request(byte op, byte[] key, byte[] value) {
        byte[] r = new byte[3 + key.length + value.length];
        r[0] = op;
        r[1] = (byte) key.length;
        r[2] = (byte) value.length;
        System.arraycopy(key, 0, r, 3, key.length);
        System.arraycopy(value, 0, r, 3 + key.length, value.length);
        return r;
    }

}
