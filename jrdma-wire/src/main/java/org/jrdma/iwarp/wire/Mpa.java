package org.jrdma.iwarp.wire;

/**
 * Constants and FPDU arithmetic of MPA, Marker PDU Aligned framing for TCP (RFC 5044), with the enhanced
 * connection establishment of RFC 6581 as Linux siw implements it ({@code drivers/infiniband/sw/siw/iwarp.h}).
 *
 * <p>An FPDU (RFC 5044 §4.1, without markers) is
 * <pre>
 * bytes 0-1        ULPDU_Length (16, big-endian): bytes of the ULPDU, excluding this field, pad and CRC
 * bytes 2..        ULPDU: the DDP segment (DDP header, RDMAP header, payload)
 *                  PAD: 0..3 zero bytes so that 2 + ULPDU_Length + PAD is a multiple of 4
 * last 4 bytes     CRC: CRC32c over ULPDU_Length, ULPDU and PAD when CRC was negotiated, else 0;
 *                  stored least significant byte first (siw, Wireshark; checked on siw-crc-*.pcap)
 * </pre>
 * siw always sends the CRC field (zero when off) and never markers. The MPA Request/Reply frames
 * ({@link MpaFrame}) come first on each TCP direction.
 */
public final class Mpa {
    /** Length of the ULPDU_Length field that starts every FPDU. */
    public static final int HEADER_LENGTH = 2;
    /** Length of the CRC field that ends every FPDU (present also when CRC is off, then zero). */
    public static final int CRC_LENGTH = 4;
    /** The largest ULPDU_Length the 16-bit field can carry. */
    public static final int MAX_ULPDU_LENGTH = 0xffff;
    /** The longest FPDU: 2 + 65535 + 3 pad + 4 CRC. */
    public static final int MAX_FPDU_LENGTH = HEADER_LENGTH + MAX_ULPDU_LENGTH + 3 + CRC_LENGTH;

    /** MPA revision 1 (RFC 5044). siw accepts revisions 0, 1 and 2 and refuses others. */
    public static final int REVISION_1 = 1;
    /** MPA revision 2 (RFC 6581): siw's default, always with {@link MpaFrame#FLAG_ENHANCED}. */
    public static final int REVISION_2 = 2;
    /**
     * Most private data an MPA Request/Reply may carry, bytes (RFC 5044 §7.1: "MUST NOT be larger than
     * 512 octets"), counting the 4 bytes of the RFC 6581 IRD/ORD block when present.
     */
    public static final int MAX_PRIVATE_DATA = 512;
    /**
     * The private data limit of Linux siw, bytes: {@code MPA_MAX_PRIVDATA = RDMA_MAX_PRIVATE_DATA} (256,
     * {@code rdma_user_cm.h}); siw's {@code siw_recv_mpa_rr} aborts a frame announcing more with -EPROTO.
     */
    public static final int SIW_MAX_PRIVATE_DATA = 256;

    private Mpa() {
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} bytes: 0..3 so that 2 + length + pad is a multiple of 4. */
    public static int padLength(int ulpduLength) {
        return -(HEADER_LENGTH + ulpduLength) & 3;
    }

    /** Bytes of the FPDU around a ULPDU of {@code ulpduLength} bytes: 2 + length + pad + 4. */
    public static int fpduLength(int ulpduLength) {
        return HEADER_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * The most payload bytes after a DDP/RDMAP header of {@code ddpHeaderLength} bytes such that the whole
     * FPDU fits in {@code segmentLength} bytes (a TCP MSS): {@code ((segmentLength - 4) & ~3) - 2 - ddpHeaderLength}.
     * siw cuts its messages this way: with MSS 1448 an RDMA Write FPDU carries 1428 bytes (ULPDU 1442, FPDU
     * 1448, {@code siw-write-bw.pcap}).
     *
     * @param segmentLength   bytes available for the FPDU, at least {@code ddpHeaderLength + 10}
     * @param ddpHeaderLength the DDP + RDMAP header length (14 tagged, 18 untagged, 46 Read Request)
     * @return the payload bytes, at least 1 for any segment length of {@code ddpHeaderLength + 10} or more
     * @throws IllegalArgumentException if the segment cannot hold the header and one payload byte
     */
    public static int maxPayload(int segmentLength, int ddpHeaderLength) {
        int n = ((segmentLength - CRC_LENGTH) & ~3) - HEADER_LENGTH - ddpHeaderLength;
        if (n < 1) {
            throw new IllegalArgumentException("segment of " + segmentLength + " bytes cannot carry a DDP header of "
                + ddpHeaderLength + " bytes and payload");
        }
        return Math.min(n, MAX_ULPDU_LENGTH - ddpHeaderLength);
    }
}
