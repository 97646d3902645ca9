package org.jrdma.rocev2.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import org.jrdma.wire.internal.Be;

/**
 * The RoCE v2 Invariant CRC (IBTA Vol 1 Annex A17.3.3 and §7.8.1), computed the way Linux rdma_rxe
 * computes it ({@code rxe_icrc.c}): CRC-32 (the Ethernet polynomial, as {@link CRC32}) over
 *
 * <pre>
 *   8 bytes 0xFF                      (stand for the masked LRH)
 *   IPv4 header, 20 bytes, with TOS = 0xFF, TTL = 0xFF, header checksum = 0xFFFF
 *     or IPv6 header, 40 bytes, with traffic class and flow label all ones, hop limit = 0xFF
 *   UDP header, 8 bytes, with checksum = 0xFFFF
 *   BTH with byte 4 (FECN, BECN, resv6) = 0xFF
 *   the extension headers, payload and pad
 * </pre>
 *
 * stored LITTLE-endian in the 4 bytes after the pad ({@link #write}). The IPv4 Identification, flags,
 * fragment offset and the lengths are not masked, so the ICRC depends on them (see
 * {@link #solveIpv4Id}). IPv4 headers are taken to be 20 bytes (no options), as rxe sends them. Checked
 * against all 422 rxe-sent RoCE v2 packets of the interop captures.
 *
 * <p>An instance holds a {@link CRC32} and a scratch array and allocates nothing per call; it is not
 * thread-safe: use one per thread. The positions and limits of {@link PacketBuffer#bb} are not touched.
 */
public final class Icrc {
    /** Length of the ICRC in bytes. */
    public static final int LENGTH = 4;

    private static final int POLY = 0xEDB88320; // CRC-32, bit-reflected
    private static final int ONE = 0x80000000;  // the polynomial 1 in the reflected representation
    private static final int IPV4_PSEUDO = 8 + 20 + 8 + Bth.LENGTH;
    private static final int IPV6_PSEUDO = 8 + 40 + 8 + Bth.LENGTH;
    /** Bytes of the ICRC input after the 2-byte IPv4 ID field, not counting BTH..payload. */
    private static final int AFTER_ID = 20 - 6 + 8;

    /** x^(-8 * 2^k) mod P for k = 0..31: un-shifts a CRC state by 2^k bytes. */
    private static final int[] INV_POW8 = new int[32];
    /** CRC state (zero start, no final xor) after the two ID bytes for ID = 1 << i. */
    private static final int[] ID_BASIS = new int[16];
    /** Reduced row echelon form of {@link #ID_BASIS}: rows, their pivot bit and the ID they stand for. */
    private static final int[] ECHELON_ROW = new int[16];
    private static final int[] ECHELON_PIVOT = new int[16];
    private static final int[] ECHELON_ID = new int[16];
    /**
     * Products by {@link #INV_POW8}[k] for k below this, one byte of the other factor at a time (a
     * product is linear in each factor): four lookups instead of 32 shift-and-xor rounds. Covers
     * every n below 2^17, more than the largest UDP payload.
     */
    private static final int TABLED_POWERS = 17;
    /** [k][byte j][value v] flattened: (v << 8j) * x^(-8 * 2^k) mod P. 68 KiB. */
    private static final int[] INV_POW8_TABLE = new int[TABLED_POWERS * 4 * 256];

    static {
        int xinv8 = ONE;
        for (int i = 0; i < 8; i++) {
            xinv8 = divx(xinv8);
        }
        INV_POW8[0] = xinv8;
        for (int k = 1; k < 32; k++) {
            INV_POW8[k] = mulmod(INV_POW8[k - 1], INV_POW8[k - 1]);
        }
        for (int i = 0; i < 16; i++) {
            ID_BASIS[i] = idState(1 << i);
        }
        // Gauss-Jordan over GF(2) on the 16 basis states (they are independent: the map ID -> state is
        // injective because 16 < 32 = deg P).
        int[] row = ID_BASIS.clone();
        int[] id = new int[16];
        for (int i = 0; i < 16; i++) {
            id[i] = 1 << i;
        }
        for (int r = 0; r < 16; r++) {
            int pivot = Integer.lowestOneBit(row[r]);
            if (pivot == 0) {
                throw new AssertionError("ICRC ID basis is singular");
            }
            for (int o = 0; o < 16; o++) {
                if (o != r && (row[o] & pivot) != 0) {
                    row[o] ^= row[r];
                    id[o] ^= id[r];
                }
            }
            ECHELON_PIVOT[r] = pivot;
        }
        System.arraycopy(row, 0, ECHELON_ROW, 0, 16);
        System.arraycopy(id, 0, ECHELON_ID, 0, 16);
        for (int k = 0; k < TABLED_POWERS; k++) {
            for (int j = 0; j < 4; j++) {
                for (int v = 0; v < 256; v++) {
                    INV_POW8_TABLE[(k * 4 + j) * 256 + v] = mulmod(v << (8 * j), INV_POW8[k]);
                }
            }
        }
    }

    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[IPV6_PSEUDO];

    /** A new calculator (one per thread). */
    public Icrc() {
        for (int i = 0; i < 8; i++) {
            pseudo[i] = (byte) 0xff;
        }
    }

    /**
     * The ICRC of a RoCE v2 packet over IPv4.
     *
     * @param srcAddr       IPv4 source address, big-endian int (10.77.0.12 = 0x0a4d000c)
     * @param dstAddr       IPv4 destination address
     * @param ipId          IPv4 Identification, 0..0xFFFF
     * @param flagsFragOff  the 16-bit flags + fragment offset field (0x4000 = DF)
     * @param srcPort       UDP source port 0..65535
     * @param dstPort       UDP destination port (4791)
     * @param buf           holds BTH .. payload .. pad at {@code [pos, pos+len)}, without the ICRC
     * @param len           bytes from BTH to the end of the pad, at least 12
     * @return the ICRC, to be stored with {@link #write}{@code (buf, pos + len, icrc)}; the IP total length
     *         used is 20 + 8 + len + 4 and the UDP length 8 + len + 4
     * @throws IndexOutOfBoundsException if {@code len < 12} or the range is outside {@code buf}
     */
    public int ipv4(int srcAddr, int dstAddr, int ipId, int flagsFragOff, int srcPort, int dstPort,
                    PacketBuffer buf, int pos, int len) {
        checkRange(buf, pos, len);
        byte[] p = pseudo;
        int ipTotal = 20 + 8 + len + LENGTH;
        p[8] = 0x45;
        p[9] = (byte) 0xff;                 // TOS masked
        p[10] = (byte) (ipTotal >>> 8);
        p[11] = (byte) ipTotal;
        p[12] = (byte) (ipId >>> 8);
        p[13] = (byte) ipId;
        p[14] = (byte) (flagsFragOff >>> 8);
        p[15] = (byte) flagsFragOff;
        p[16] = (byte) 0xff;                // TTL masked
        p[17] = 17;                         // UDP
        p[18] = (byte) 0xff;                // header checksum masked
        p[19] = (byte) 0xff;
        putInt(p, 20, srcAddr);
        putInt(p, 24, dstAddr);
        putUdp(p, 28, srcPort, dstPort, 8 + len + LENGTH);
        return finish(p, 36, IPV4_PSEUDO, buf, pos, len);
    }

    /**
     * The ICRC of a RoCE v2 packet over IPv6. Addresses are given as two big-endian longs each (bytes 0-7
     * and 8-15 of the address). The IPv6 payload length used is 8 + len + 4.
     *
     * @throws IndexOutOfBoundsException if {@code len < 12} or the range is outside {@code buf}
     * @see #ipv4
     */
    public int ipv6(long srcHi, long srcLo, long dstHi, long dstLo, int srcPort, int dstPort,
                    PacketBuffer buf, int pos, int len) {
        checkRange(buf, pos, len);
        byte[] p = pseudo;
        int payloadLength = 8 + len + LENGTH;
        p[8] = 0x6f;                        // version 6, traffic class and flow label masked
        p[9] = (byte) 0xff;
        p[10] = (byte) 0xff;
        p[11] = (byte) 0xff;
        p[12] = (byte) (payloadLength >>> 8);
        p[13] = (byte) payloadLength;
        p[14] = 17;                         // next header UDP
        p[15] = (byte) 0xff;                // hop limit masked
        putLong(p, 16, srcHi);
        putLong(p, 24, srcLo);
        putLong(p, 32, dstHi);
        putLong(p, 40, dstLo);
        putUdp(p, 48, srcPort, dstPort, payloadLength);
        return finish(p, 56, IPV6_PSEUDO, buf, pos, len);
    }

    /**
     * Recovers the IPv4 Identification of a received packet from its ICRC.
     *
     * <p>A receiver behind an ordinary UDP socket does not see the IPv4 ID, yet the ICRC covers it. CRC-32
     * is affine over GF(2): for two inputs of equal length, {@code crc(a) ^ crc(b)} is the CRC register
     * (zero start, no final xor) of {@code a ^ b}. So {@code receivedIcrc ^ ipv4(..., ipId = 0, ...)}
     * is the register after the 16 ID bits followed by {@code n = 22 + len} zero bytes, that is
     * {@code S(ID) * x^(8n) mod P}. This method multiplies by {@code x^(-8n)} (a product of precomputed
     * inverse powers, one per bit of n) and maps the resulting 32-bit state back to the unique 16-bit ID
     * through the reduced echelon form of the 16 basis states, then checks that the ID reproduces the
     * state. Cost: one ICRC pass plus at most 17 table-driven products (four lookups each); no allocation.
     *
     * <p><b>Strength left.</b> Solving for the ID spends 16 of the 32 check bits: a corrupted packet is
     * accepted if its error pattern happens to look like some ID, which for random corruption happens with
     * probability about 2^-16 (instead of 2^-32 with a known ID). Burst-error guarantees of CRC-32 are
     * reduced accordingly. The sender's choice of ID does not matter: any ID, including the kernel's
     * unpredictable one, is recovered exactly when the rest of the packet is intact.
     *
     * @param receivedIcrc the ICRC read from the packet ({@link #read})
     * @return the IPv4 ID 0..65535 for which the ICRC matches, or -1 if there is none (the packet is corrupt
     *         or was not computed over an IPv4 header with these addresses, ports and flags)
     * @throws IndexOutOfBoundsException if {@code len < 12} or the range is outside {@code buf}
     */
    public int solveIpv4Id(int srcAddr, int dstAddr, int flagsFragOff, int srcPort, int dstPort,
                           PacketBuffer buf, int pos, int len, int receivedIcrc) {
        int delta = receivedIcrc ^ ipv4(srcAddr, dstAddr, 0, flagsFragOff, srcPort, dstPort, buf, pos, len);
        if (delta == 0) {
            // ID 0: what Linux writes on DF datagrams of unconnected UDP sockets (jrdma's UDP mode), so the
            // common case between jrdma peers needs no products (the map from ID to state is linear: 0 -> 0)
            return 0;
        }
        int n = AFTER_ID + len;
        int state = delta;
        for (int k = 0; n != 0; k++, n >>>= 1) {
            if ((n & 1) != 0) {
                state = k < TABLED_POWERS ? mulInvPow8(state, k) : mulmod(state, INV_POW8[k]);
            }
        }
        int id = 0;
        int rest = state;
        for (int r = 0; r < 16; r++) {
            if ((rest & ECHELON_PIVOT[r]) != 0) {
                rest ^= ECHELON_ROW[r];
                id ^= ECHELON_ID[r];
            }
        }
        return rest == 0 ? id : -1;
    }

    /** Reads the ICRC stored little-endian at {@code buf[pos, pos+4)}. */
    public static int read(PacketBuffer buf, int pos) {
        return buf.seg.get(Be.INT_LE, pos);
    }

    /** Stores {@code icrc} little-endian at {@code buf[pos, pos+4)}, as rxe does. */
    public static void write(PacketBuffer buf, int pos, int icrc) {
        buf.seg.set(Be.INT_LE, pos, icrc);
    }

    // ---------------------------------------------------------------------------------------------

    private int finish(byte[] p, int bthAt, int pseudoLength, PacketBuffer buf, int pos, int len) {
        ByteBuffer v = buf.crcView;
        v.limit(pos + len); // first: the absolute get checks against the limit an earlier packet left
        v.get(pos, p, bthAt, Bth.LENGTH);
        p[bthAt + 4] = (byte) 0xff;         // FECN, BECN, resv6 masked
        CRC32 c = crc;
        c.reset();
        c.update(p, 0, pseudoLength);
        v.position(pos + Bth.LENGTH);
        c.update(v);
        return (int) c.getValue();
    }

    private static void checkRange(PacketBuffer buf, int pos, int len) {
        if (len < Bth.LENGTH || pos < 0 || pos > buf.capacity() - len) {
            throw new IndexOutOfBoundsException("ICRC range [" + pos + ", " + pos + "+" + len
                + ") must hold a BTH and lie in 0.." + buf.capacity());
        }
    }

    private static void putUdp(byte[] p, int at, int srcPort, int dstPort, int udpLength) {
        p[at] = (byte) (srcPort >>> 8);
        p[at + 1] = (byte) srcPort;
        p[at + 2] = (byte) (dstPort >>> 8);
        p[at + 3] = (byte) dstPort;
        p[at + 4] = (byte) (udpLength >>> 8);
        p[at + 5] = (byte) udpLength;
        p[at + 6] = (byte) 0xff;            // UDP checksum masked
        p[at + 7] = (byte) 0xff;
    }

    private static void putInt(byte[] p, int at, int v) {
        p[at] = (byte) (v >>> 24);
        p[at + 1] = (byte) (v >>> 16);
        p[at + 2] = (byte) (v >>> 8);
        p[at + 3] = (byte) v;
    }

    private static void putLong(byte[] p, int at, long v) {
        putInt(p, at, (int) (v >>> 32));
        putInt(p, at + 4, (int) v);
    }

    /** Multiplies a bit-reflected polynomial by x modulo P. */
    private static int mulx(int a) {
        return (a >>> 1) ^ (-(a & 1) & POLY);
    }

    /** Multiplies a bit-reflected polynomial by x^-1 modulo P (the inverse of {@link #mulx}). */
    private static int divx(int a) {
        int low = a >>> 31;                 // the bit mulx shifted out, recognisable by POLY's top bit
        return ((a ^ (-low & POLY)) << 1) | low;
    }

    /** a * {@link #INV_POW8}[k] mod P through {@link #INV_POW8_TABLE}. */
    private static int mulInvPow8(int a, int k) {
        int t = k * 1024;
        return INV_POW8_TABLE[t + (a & 0xff)]
                ^ INV_POW8_TABLE[t + 256 + ((a >>> 8) & 0xff)]
                ^ INV_POW8_TABLE[t + 512 + ((a >>> 16) & 0xff)]
                ^ INV_POW8_TABLE[t + 768 + (a >>> 24)];
    }

    /** a * b mod P, both bit-reflected (bit 31 = x^0). */
    static int mulmod(int a, int b) {
        int p = 0;
        for (int m = ONE; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                p ^= b;
            }
            b = mulx(b);
        }
        return p;
    }

    /** The CRC register after the two ID bytes (big-endian) from a zero register, without final xor. */
    private static int idState(int id) {
        int r = 0;
        for (int shift = 8; shift >= 0; shift -= 8) {
            r ^= (id >>> shift) & 0xff;
            for (int i = 0; i < 8; i++) {
                r = mulx(r);
            }
        }
        return r;
    }
}
