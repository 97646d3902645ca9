package org.jrdma.iwarp.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * MPA request and reply frames (RFC 5044 §7.1, RFC 6581 §4 enhanced connection setup), as siw
 * sends and checks them ({@code siw_cm.c}, {@code iwarp.h}): the 16-byte key, the flags and
 * revision, the private data length, then private data whose first 4 bytes, with Enhanced set
 * (revision 2), are the IRD and ORD (14 bits each; IRD bit 15 peer-to-peer, bit 14 zero-length
 * RTR; ORD bit 15 WRITE RTR, bit 14 READ RTR). Control path: frames are made and parsed as arrays.
 */
final class Mpa {
    private Mpa() {
    }

    static final byte[] KEY_REQ = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] KEY_REP = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 20;
    static final int OFF_FLAGS = 16;
    static final int OFF_REV = 17;
    static final int OFF_PD_LEN = 18;
    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    static final int REVISION_1 = 1;
    static final int REVISION_2 = 2;
    /** The RFC 6581 IRD/ORD block. */
    static final int V2_LEN = 4;
    static final int IRD_ORD_MASK = 0x3FFF;
    static final int V2_PEER_TO_PEER = 0x8000;
    static final int V2_ZERO_LENGTH_RTR = 0x4000;
    static final int V2_WRITE_RTR = 0x8000;
    static final int V2_READ_RTR = 0x4000;

    /**
     * One received frame.
     *
     * @param request a request (else a reply)
     * @param flags M, C, R, Enhanced bits
     * @param revision the revision byte
     * @param ird, ord the RFC 6581 values (14 bits) when {@link #enhanced()}, else -1
     * @param irdFlags, ordFlags the RFC 6581 control bits (peer-to-peer, RTR kinds)
     * @param privateData the application's private data (after the IRD/ORD block)
     */
    record Frame(boolean request, int flags, int revision, int ird, int ord, int irdFlags, int ordFlags,
                 byte[] privateData) {
        boolean markers() {
            return (flags & FLAG_MARKERS) != 0;
        }

        boolean crc() {
            return (flags & FLAG_CRC) != 0;
        }

        boolean reject() {
            return (flags & FLAG_REJECT) != 0;
        }

        boolean enhanced() {
            return ird >= 0;
        }
    }

    /** Parses the frame at {@code off} (its whole length present), or null when the key is neither. */
    static Frame parse(MemorySegment s, long off, int pdLen) {
        boolean req = matches(s, off, KEY_REQ);
        if (!req && !matches(s, off, KEY_REP)) {
            return null;
        }
        int flags = s.get(ValueLayout.JAVA_BYTE, off + OFF_FLAGS) & 0xFF;
        int rev = s.get(ValueLayout.JAVA_BYTE, off + OFF_REV) & 0xFF;
        long pd = off + HEADER;
        int ird = -1;
        int ord = -1;
        int irdFlags = 0;
        int ordFlags = 0;
        int skip = 0;
        if (rev == REVISION_2 && (flags & FLAG_ENHANCED) != 0) {
            if (pdLen < V2_LEN) {
                return null;
            }
            int i = Iw.u16(s, pd);
            int o = Iw.u16(s, pd + 2);
            ird = i & IRD_ORD_MASK;
            ord = o & IRD_ORD_MASK;
            irdFlags = i & ~IRD_ORD_MASK;
            ordFlags = o & ~IRD_ORD_MASK;
            skip = V2_LEN;
        }
        byte[] user = s.asSlice(pd + skip, pdLen - skip).toArray(ValueLayout.JAVA_BYTE);
        return new Frame(req, flags, rev, ird, ord, irdFlags, ordFlags, user);
    }

    private static boolean matches(MemorySegment s, long off, byte[] key) {
        for (int i = 0; i < key.length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * A request or reply frame. {@code ird}/{@code ord} &lt; 0: revision 1 (no IRD/ORD block);
     * otherwise revision 2 with Enhanced and the block.
     */
    static byte[] frame(boolean request, boolean crc, boolean reject, int ird, int ord, byte[] privateData) {
        boolean v2 = ird >= 0;
        int pdLen = (v2 ? V2_LEN : 0) + privateData.length;
        byte[] f = new byte[HEADER + pdLen];
        System.arraycopy(request ? KEY_REQ : KEY_REP, 0, f, 0, 16);
        f[OFF_FLAGS] = (byte) ((crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0) | (v2 ? FLAG_ENHANCED : 0));
        f[OFF_REV] = (byte) (v2 ? REVISION_2 : REVISION_1);
        f[OFF_PD_LEN] = (byte) (pdLen >> 8);
        f[OFF_PD_LEN + 1] = (byte) pdLen;
        int p = HEADER;
        if (v2) {
            f[p] = (byte) (ird >> 8 & 0x3F);
            f[p + 1] = (byte) ird;
            f[p + 2] = (byte) (ord >> 8 & 0x3F);
            f[p + 3] = (byte) ord;
            p += V2_LEN;
        }
        System.arraycopy(privateData, 0, f, p, privateData.length);
        return f;
    }
}
