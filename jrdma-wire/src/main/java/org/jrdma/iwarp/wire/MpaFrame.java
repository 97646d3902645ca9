package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.wire.internal.Be;

/**
 * MPA Request/Reply frame flyweight (RFC 5044 §7.1; RFC 6581 §5 for revision 2), 20 bytes followed by the
 * private data, as Linux siw sends it ({@code struct mpa_rr} in {@code iwarp.h}):
 *
 * <pre>
 * bytes 0-15   Key: "MPA ID Req Frame" (initiator) or "MPA ID Rep Frame" (responder), ASCII
 * byte 16      M (0x80) markers | C (0x40) CRC | R (0x20) reject | Res (5 bits): siw uses 0x10
 *              MPA_RR_FLAG_ENHANCED (with revision 2: the private data starts with the IRD/ORD block,
 *              {@link MpaIrdOrd}) and 0x08 MPA_RR_FLAG_GSO_EXP (siw-private: "peer allows GSO")
 * byte 17      Rev: revision (1 = RFC 5044, 2 = RFC 6581)
 * bytes 18-19  PD_Length: bytes of private data that follow (big-endian), 0..512 ({@link Mpa#MAX_PRIVATE_DATA})
 * bytes 20..   private data: with Enhanced, 4 bytes IRD/ORD then the application's (rdma_cm's) data
 * </pre>
 *
 * <p>siw (Linux 6.1, {@code siw_cm.c}): the initiator sends revision 2 with Enhanced and C as configured
 * (off by default); a responder refuses (sends the frame back as a Reply with R set, then closes) a request
 * with M set, or with Enhanced but fewer than 4 bytes of private data; a revision above 2 or a wrong key
 * aborts the connection. The reject frame is the request turned into a Reply: key "MPA ID Rep Frame", R set,
 * M cleared, no private data ({@code siw_proc_mpareq}, {@code reject_conn}). A Request or Reply with M set
 * must be refused: siw (and jrdma) do not implement markers.
 *
 * <p>Setters write in place and return this; nothing here allocates except {@link #key()}. Not thread-safe.
 */
public final class MpaFrame {
    /** Length of the frame without its private data. */
    public static final int HEADER_LENGTH = 20;
    /** Length of the key. */
    public static final int KEY_LENGTH = 16;
    /** Flag M in byte 16: markers wanted (RFC 5044 §7.1). siw rejects it. */
    public static final int FLAG_MARKERS = 0x80;
    /** Flag C in byte 16: CRC wanted (initiator) or in use (responder) (RFC 5044 §7.1). */
    public static final int FLAG_CRC = 0x40;
    /** Flag R in byte 16: the responder rejects the connection (RFC 5044 §7.1). */
    public static final int FLAG_REJECT = 0x20;
    /** siw's {@code MPA_RR_FLAG_ENHANCED} in byte 16: RFC 6581 enhanced connection establishment. */
    public static final int FLAG_ENHANCED = 0x10;
    /** siw's private {@code MPA_RR_FLAG_GSO_EXP} in byte 16: FPDUs larger than one MSS are accepted. */
    public static final int FLAG_GSO_EXP = 0x08;

    private static final byte[] KEY_REQ = "MPA ID Req Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] KEY_REP = "MPA ID Rep Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** The key's bytes 0..6 and 11..15 are the same for request and reply; bytes 7..9 are "Req" or "Rep". */
    private static final long KEY_HEAD = 0x4d50412049442052L; // "MPA ID R"
    private static final long KEY_REQ_TAIL = 0x6571204672616d65L; // "eq Frame"
    private static final long KEY_REP_TAIL = 0x6570204672616d65L; // "ep Frame"

    /** What {@link #keyKind()} returns for the request key. */
    public static final int KEY_REQUEST = 1;
    /** What {@link #keyKind()} returns for the reply key. */
    public static final int KEY_REPLY = 2;
    /** What {@link #keyKind()} returns for anything else. */
    public static final int KEY_OTHER = 0;

    private MemorySegment seg;
    private long off;

    /**
     * Points this flyweight at the frame at {@code seg[offset, ...)}.
     *
     * @return this
     */
    public MpaFrame wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** The wrapped segment. */
    public MemorySegment segment() {
        return seg;
    }

    /** The offset of the frame in {@link #segment()}. */
    public long offset() {
        return off;
    }

    /** {@link #KEY_REQUEST}, {@link #KEY_REPLY} or {@link #KEY_OTHER}, from the 16 key bytes. */
    public int keyKind() {
        if (Be.i64(seg, off) != KEY_HEAD) {
            return KEY_OTHER;
        }
        long tail = Be.i64(seg, off + 8);
        return tail == KEY_REQ_TAIL ? KEY_REQUEST : tail == KEY_REP_TAIL ? KEY_REPLY : KEY_OTHER;
    }

    /** True if the key is "MPA ID Req Frame". */
    public boolean isRequest() {
        return keyKind() == KEY_REQUEST;
    }

    /** True if the key is "MPA ID Rep Frame". */
    public boolean isReply() {
        return keyKind() == KEY_REPLY;
    }

    /** The 16 key bytes as text (ISO-8859-1). Allocates. */
    public String key() {
        byte[] k = new byte[KEY_LENGTH];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, k, 0, KEY_LENGTH);
        return new String(k, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Writes the request key "MPA ID Req Frame". @return this */
    public MpaFrame requestKey() {
        MemorySegment.copy(KEY_REQ, 0, seg, ValueLayout.JAVA_BYTE, off, KEY_LENGTH);
        return this;
    }

    /** Writes the reply key "MPA ID Rep Frame". @return this */
    public MpaFrame replyKey() {
        MemorySegment.copy(KEY_REP, 0, seg, ValueLayout.JAVA_BYTE, off, KEY_LENGTH);
        return this;
    }

    /** Byte 16 whole: M, C, R and the five Res bits (siw's Enhanced 0x10, GSO_EXP 0x08). */
    public int flags() {
        return Be.u8(seg, off + 16);
    }

    /** Sets byte 16 whole. @return this */
    public MpaFrame flags(int v) {
        Be.u8(seg, off + 16, v);
        return this;
    }

    /** M: markers. */
    public boolean markers() {
        return (flags() & FLAG_MARKERS) != 0;
    }

    /** Sets {@link #markers()}. @return this */
    public MpaFrame markers(boolean v) {
        Be.bit(seg, off + 16, FLAG_MARKERS, v);
        return this;
    }

    /** C: CRC. */
    public boolean crc() {
        return (flags() & FLAG_CRC) != 0;
    }

    /** Sets {@link #crc()}. @return this */
    public MpaFrame crc(boolean v) {
        Be.bit(seg, off + 16, FLAG_CRC, v);
        return this;
    }

    /** R: reject. */
    public boolean reject() {
        return (flags() & FLAG_REJECT) != 0;
    }

    /** Sets {@link #reject()}. @return this */
    public MpaFrame reject(boolean v) {
        Be.bit(seg, off + 16, FLAG_REJECT, v);
        return this;
    }

    /** siw's Enhanced flag (0x10). */
    public boolean enhanced() {
        return (flags() & FLAG_ENHANCED) != 0;
    }

    /** Sets {@link #enhanced()}. @return this */
    public MpaFrame enhanced(boolean v) {
        Be.bit(seg, off + 16, FLAG_ENHANCED, v);
        return this;
    }

    /** siw's GSO_EXP flag (0x08). */
    public boolean gsoExp() {
        return (flags() & FLAG_GSO_EXP) != 0;
    }

    /** Sets {@link #gsoExp()}. @return this */
    public MpaFrame gsoExp(boolean v) {
        Be.bit(seg, off + 16, FLAG_GSO_EXP, v);
        return this;
    }

    /** Rev, 0..255 (1 or 2 defined). */
    public int revision() {
        return Be.u8(seg, off + 17);
    }

    /** Sets {@link #revision()} (low 8 bits). @return this */
    public MpaFrame revision(int v) {
        Be.u8(seg, off + 17, v);
        return this;
    }

    /** PD_Length, 0..65535 as received (a valid frame has at most 512). */
    public int privateDataLength() {
        return Be.u16(seg, off + 18);
    }

    /** Sets PD_Length (low 16 bits; the caller keeps it within 512). @return this */
    public MpaFrame privateDataLength(int v) {
        Be.u16(seg, off + 18, v);
        return this;
    }

    /** Offset of the private data in {@link #segment()}: {@code offset() + 20}. */
    public long privateDataOffset() {
        return off + HEADER_LENGTH;
    }

    /** True if revision is 2, Enhanced is set and at least 4 bytes of private data hold the IRD/ORD block. */
    public boolean hasIrdOrd() {
        return revision() == Mpa.REVISION_2 && enhanced() && privateDataLength() >= MpaIrdOrd.LENGTH;
    }

    /**
     * Offset of the application's private data: after the IRD/ORD block when {@link #hasIrdOrd()}, else
     * {@link #privateDataOffset()}.
     */
    public long ulpPrivateDataOffset() {
        return privateDataOffset() + (hasIrdOrd() ? MpaIrdOrd.LENGTH : 0);
    }

    /** Bytes of the application's private data: PD_Length minus 4 when {@link #hasIrdOrd()}. */
    public int ulpPrivateDataLength() {
        return privateDataLength() - (hasIrdOrd() ? MpaIrdOrd.LENGTH : 0);
    }

    /** The whole frame's length: 20 + PD_Length. */
    public int length() {
        return HEADER_LENGTH + privateDataLength();
    }

    /**
     * Checks the frame as a receiver must before acting on it (RFC 5044 §7.1, siw {@code siw_recv_mpa_rr},
     * {@code siw_proc_mpareq}, {@code siw_proc_mpareply}): the key expected, a revision of at most 2, a
     * private data length within {@code maxPrivateData}, and with Enhanced on revision 2 at least 4 bytes of
     * private data. Markers are not checked here ({@link #markers()} is a valid frame the receiver must
     * refuse). Only the 20 header bytes are read.
     *
     * @param request        true to expect "MPA ID Req Frame", false for "MPA ID Rep Frame"
     * @param maxPrivateData {@link Mpa#MAX_PRIVATE_DATA} or a lower local limit ({@link Mpa#SIW_MAX_PRIVATE_DATA})
     * @return {@link FpduDropReason#OK} or {@link FpduDropReason#MPA_BAD_KEY}, {@link FpduDropReason#MPA_BAD_REVISION},
     *         {@link FpduDropReason#MPA_PRIVATE_DATA_TOO_LONG}, {@link FpduDropReason#MPA_NO_IRD_ORD}
     */
    public int validate(boolean request, int maxPrivateData) {
        if (keyKind() != (request ? KEY_REQUEST : KEY_REPLY)) {
            return FpduDropReason.MPA_BAD_KEY;
        }
        if (revision() > Mpa.REVISION_2) {
            return FpduDropReason.MPA_BAD_REVISION;
        }
        int pd = privateDataLength();
        if (pd > maxPrivateData) {
            return FpduDropReason.MPA_PRIVATE_DATA_TOO_LONG;
        }
        if (revision() == Mpa.REVISION_2 && enhanced() && pd < MpaIrdOrd.LENGTH) {
            return FpduDropReason.MPA_NO_IRD_ORD;
        }
        return FpduDropReason.OK;
    }
}
