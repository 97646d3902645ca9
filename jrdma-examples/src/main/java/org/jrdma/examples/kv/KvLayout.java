package org.jrdma.examples.kv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The server's hash table as clients READ it: {@code buckets} slots of {@link #SLOT} bytes, open
 * addressing with linear probing (up to {@link #PROBES} slots from the key's bucket: FNV-1a 64 of the
 * key, mixed by MurmurHash3's fmix64, modulo the bucket count), so that a GET is one RDMA READ per probe (Pilaf's layout idea).
 *
 * <pre>
 * slot: version  u64  (odd while the server rewrites the slot; +2 per update)
 *       crc      u32  CRC32C over version and bytes 12..127
 *       keyLen   u16  (0: empty slot, ends a probe sequence)
 *       valLen   u16
 *       key      32 B
 *       value    80 B
 * </pre>
 *
 * All fields in little-endian (the table is read as bytes, so the client's order does not matter).
 * A READ that raced with an update (a torn read: the slot's bytes from before and after) shows an odd
 * version or a CRC that does not match; the client reads again. The CRC makes the check independent of
 * the order in which the NIC's DMA lands the slot's bytes.
 */
public final class KvLayout {
    public static final int SLOT = 128;
    public static final int PROBES = 8;
    public static final int MAX_KEY = 32;
    public static final int MAX_VALUE = 80;
    static final int VERSION = 0;
    static final int CRC = 8;
    static final int KEY_LEN = 12;
    static final int VAL_LEN = 14;
    static final int KEY = 16;
    static final int VALUE = 48;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private KvLayout() {
    }

    /** The bucket of {@code key}: FNV-1a 64 modulo {@code buckets}. */
    public static int bucket(byte[] key, int buckets) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;                      // MurmurHash3's fmix64: FNV's low bits alone cluster similar keys
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) Long.remainderUnsigned(h, buckets);
    }

    static int crc(MemorySegment slot, long version) {
        CRC32C c = new CRC32C();
        byte[] v = new byte[8];
        ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).putLong(version);
        c.update(v);
        c.update(slot.asSlice(KEY_LEN, SLOT - KEY_LEN).asByteBuffer());
        return (int) c.getValue();
    }

    /** The outcome of reading one slot. */
    public enum Look { TORN, EMPTY, OTHER_KEY, FOUND }

    /** Checks the slot read into {@code slot} against {@code key}; on FOUND the value is in {@code value[0]}. */
    public static Look look(MemorySegment slot, byte[] key, byte[][] value) {
        long version = slot.get(LONG, VERSION);
        if ((version & 1) != 0 || slot.get(INT, CRC) != crc(slot, version)) {
            return Look.TORN;
        }
        int kl = slot.get(SHORT, KEY_LEN) & 0xffff;
        if (kl == 0) {
            return Look.EMPTY;
        }
        if (kl != key.length || !Arrays.equals(slot.asSlice(KEY, kl).toArray(ValueLayout.JAVA_BYTE), key)) {
            return Look.OTHER_KEY;
        }
        int vl = slot.get(SHORT, VAL_LEN) & 0xffff;
        value[0] = slot.asSlice(VALUE, Math.min(vl, MAX_VALUE)).toArray(ValueLayout.JAVA_BYTE);
        return Look.FOUND;
    }

    /** Whether the slot holds {@code key} (the server's view: no torn reads, it is the only writer). */
    static boolean holds(MemorySegment slot, byte[] key) {
        int kl = slot.get(SHORT, KEY_LEN) & 0xffff;
        return kl == key.length && Arrays.equals(slot.asSlice(KEY, kl).toArray(ValueLayout.JAVA_BYTE), key);
    }

    static boolean empty(MemorySegment slot) {
        return slot.get(SHORT, KEY_LEN) == 0;
    }

    /**
     * Rewrites a slot as a reader must see it: version odd, the fields, the CRC, version even (the
     * server is the only writer; a reader meanwhile sees an odd version or a CRC mismatch).
     */
    static void store(MemorySegment slot, byte[] key, byte[] value) {
        long v = slot.get(LONG, VERSION);
        long next = (v | 1) + 1;                      // even, greater than v
        slot.set(LONG, VERSION, v | 1);
        java.lang.invoke.VarHandle.fullFence();
        slot.set(SHORT, KEY_LEN, (short) key.length);
        slot.set(SHORT, VAL_LEN, (short) value.length);
        slot.asSlice(KEY, MAX_KEY).fill((byte) 0);
        slot.asSlice(VALUE, MAX_VALUE).fill((byte) 0);
        MemorySegment.copy(key, 0, slot, ValueLayout.JAVA_BYTE, KEY, key.length);
        MemorySegment.copy(value, 0, slot, ValueLayout.JAVA_BYTE, VALUE, value.length);
        slot.set(INT, CRC, crc(slot, next));
        java.lang.invoke.VarHandle.fullFence();
        slot.set(LONG, VERSION, next);
    }

    /** Marks a slot as being rewritten (an odd version), as a server caught mid-update leaves it. */
    static void beginUpdate(MemorySegment slot) {
        slot.set(LONG, VERSION, slot.get(LONG, VERSION) | 1);
    }
}
