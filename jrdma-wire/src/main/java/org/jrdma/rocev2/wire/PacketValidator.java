package org.jrdma.rocev2.wire;

import org.jrdma.wire.internal.Be;

/**
 * Receive-side structural checks of one RoCE v2 packet (a UDP payload: BTH .. payload .. pad .. ICRC),
 * before any QP state is looked at. Never throws, never allocates: the answer is a {@link DropReason}
 * code. The checks, in this order:
 *
 * <ol>
 * <li>{@link DropReason#OUT_OF_BUFFER}: {@code [pos, pos+len)} is not inside the buffer;</li>
 * <li>{@link DropReason#TOO_SHORT}: fewer than 16 bytes (BTH + ICRC);</li>
 * <li>{@link DropReason#BAD_ICRC}: the caller's ICRC verdict ({@link Icrc}) was negative; a packet with
 *     corrupted bytes is reported as such rather than by whatever field the corruption hit;</li>
 * <li>{@link DropReason#BAD_TVER}: TVer != 0 (IBTA §9.2.5);</li>
 * <li>{@link DropReason#BAD_OPCODE}: not an RC/UC/UD/CNP opcode of table 38 ({@link Opcode#isValid});</li>
 * <li>{@link DropReason#TRUNCATED_HEADER}: shorter than {@link Opcode#headerLength} + 4;</li>
 * <li>{@link DropReason#BAD_LENGTH}: length not a multiple of 4, or bytes after the headers of an opcode
 *     without payload;</li>
 * <li>{@link DropReason#BAD_PAD}: pad count larger than the bytes after the headers, or non-zero on a
 *     First/Middle packet or an opcode without payload;</li>
 * <li>{@link DropReason#OVER_MTU}: payload (without pad) larger than {@code pathMtu}.</li>
 * </ol>
 *
 * What needs the QP (PSN order, Middle packets of exactly one MTU, P_Key and Q_Key, access rights) is the
 * transport's business.
 */
public final class PacketValidator {
    private PacketValidator() {
    }

    /**
     * Validates the packet at {@code buf[pos, pos+len)}.
     *
     * @param len     bytes of the UDP payload including the 4-byte ICRC
     * @param pathMtu the path MTU in bytes (256..4096); {@code <= 0} skips the MTU check
     * @param icrcOk  the outcome of the caller's ICRC check of this packet
     * @return {@link DropReason#OK} or the reason to drop it
     */
    public static int validate(PacketBuffer buf, int pos, int len, int pathMtu, boolean icrcOk) {
        if (buf == null || pos < 0 || len < 0 || pos > buf.capacity() - len) {
            return DropReason.OUT_OF_BUFFER;
        }
        if (len < Bth.LENGTH + Icrc.LENGTH) {
            return DropReason.TOO_SHORT;
        }
        if (!icrcOk) {
            return DropReason.BAD_ICRC;
        }
        int op = Be.u8(buf.seg, pos);
        int b1 = Be.u8(buf.seg, pos + 1);
        if ((b1 & 0x0f) != 0) {
            return DropReason.BAD_TVER;
        }
        int mask = Opcode.mask(op);
        if ((mask & Opcode.VALID) == 0) {
            return DropReason.BAD_OPCODE;
        }
        int hdr = Opcode.headerLength(op);
        if (len < hdr + Icrc.LENGTH) {
            return DropReason.TRUNCATED_HEADER;
        }
        if ((len & 3) != 0) {
            return DropReason.BAD_LENGTH;
        }
        int afterHeaders = len - hdr - Icrc.LENGTH;  // payload + pad
        int pad = (b1 >>> 4) & 0x3;
        if ((mask & Opcode.PAYLOAD) == 0) {
            if (afterHeaders != 0) {
                return DropReason.BAD_LENGTH;
            }
            return pad != 0 ? DropReason.BAD_PAD : DropReason.OK;
        }
        if (pad > afterHeaders || (pad != 0 && (mask & (Opcode.FIRST | Opcode.MIDDLE)) != 0)) {
            return DropReason.BAD_PAD;
        }
        if (pathMtu > 0 && afterHeaders - pad > pathMtu) {
            return DropReason.OVER_MTU;
        }
        return DropReason.OK;
    }

    /**
     * Payload bytes (without pad) of a packet that {@link #validate} accepted: {@code len} minus headers,
     * pad and ICRC.
     */
    public static int payloadLength(PacketBuffer buf, int pos, int len) {
        int op = Be.u8(buf.seg, pos);
        int pad = (Be.u8(buf.seg, pos + 1) >>> 4) & 0x3;
        return len - Opcode.headerLength(op) - pad - Icrc.LENGTH;
    }
}
