package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;
import java.util.UUID;

/**
 * The data of a Connect command, 1024 bytes (NVMe-oF 1.1 §3.3, Figure 21; Linux
 * {@code struct nvmf_connect_data}):
 *
 * <pre>
 * 0   HOSTID   16 bytes, the host identifier (a UUID, in its byte order)
 * 16  CNTLID   u16, 0xFFFF on the admin queue (dynamic controller model: any), the admin queue's controller on I/O queues
 * 256 SUBNQN   256 bytes, NUL terminated
 * 512 HOSTNQN  256 bytes, NUL terminated
 * </pre>
 */
public final class ConnectData {
    public static final int SIZE = 1024;
    /** CNTLID 0xFFFF: the controller may allocate any controller (the dynamic model). */
    public static final int CNTLID_DYNAMIC = 0xffff;
    /** The longest NQN (NVMe Base 2.0 §4.5: 223 bytes; the field holds 256 with the NUL). */
    public static final int NQN_MAX = 223;

    private ConnectData() {
    }

    /** Writes the 1024 bytes at {@code off} of {@code seg}. */
    public static void write(MemorySegment seg, long off, UUID hostId, int cntlid, String subsysNqn, String hostNqn) {
        seg.asSlice(off, SIZE).fill((byte) 0);
        Le.u64(seg, off, Long.reverseBytes(hostId.getMostSignificantBits()));
        Le.u64(seg, off + 8, Long.reverseBytes(hostId.getLeastSignificantBits()));
        Le.u16(seg, off + 16, cntlid);
        nqn(seg, off + 256, subsysNqn);
        nqn(seg, off + 512, hostNqn);
    }

    private static void nqn(MemorySegment seg, long off, String nqn) {
        if (nqn.length() > NQN_MAX) {
            throw new IllegalArgumentException("NQN '" + nqn + "' is longer than " + NQN_MAX + " bytes");
        }
        Le.ascii(seg, off, 256, nqn);
    }

    public static UUID hostId(MemorySegment seg, long off) {
        return new UUID(Long.reverseBytes(Le.u64(seg, off)), Long.reverseBytes(Le.u64(seg, off + 8)));
    }

    public static int cntlid(MemorySegment seg, long off) {
        return Le.u16(seg, off + 16);
    }

    public static String subsysNqn(MemorySegment seg, long off) {
        return Le.ascii(seg, off + 256, 256);
    }

    public static String hostNqn(MemorySegment seg, long off) {
        return Le.ascii(seg, off + 512, 256);
    }
}
