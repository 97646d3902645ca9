package org.jrdma.iwarp.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.iwarp.wire.FpduDropReason;
import org.jrdma.iwarp.wire.Mpa;
import org.jrdma.iwarp.wire.MpaFrame;
import org.jrdma.iwarp.wire.MpaIrdOrd;

/**
 * MPA request and reply frames as the CM side uses them, made and read with {@code org.jrdma.iwarp.wire}'s
 * {@link MpaFrame} and {@link MpaIrdOrd} (RFC 5044 §7.1, RFC 6581 §4, siw's Enhanced flag). Control
 * path: frames are copied into arrays.
 */
final class MpaFrames {
    private MpaFrames() {
    }

    /**
     * One received frame.
     *
     * @param request a request (else a reply)
     * @param flags byte 16 as received (M, C, R, Enhanced, siw's GSO_EXP)
     * @param revision byte 17
     * @param irdWord the RFC 6581 IRD word (IRD in the low 14 bits, peer-to-peer and zero-length-RTR
     *        bits) when {@link #enhanced()}, else -1; {@code ordWord} likewise (ORD, Write and Read RTR)
     * @param drop {@link FpduDropReason#OK}, or why the frame is invalid: {@link FpduDropReason#MPA_BAD_KEY},
     *        {@link FpduDropReason#MPA_BAD_REVISION}, {@link FpduDropReason#MPA_NO_IRD_ORD}
     * @param privateData the application's private data (after the IRD/ORD block)
     */
    record Frame(boolean request, int flags, int revision, int irdWord, int ordWord, int drop, byte[] privateData) {
        boolean markers() {
            return (flags & MpaFrame.FLAG_MARKERS) != 0;
        }

        boolean crc() {
            return (flags & MpaFrame.FLAG_CRC) != 0;
        }

        boolean reject() {
            return (flags & MpaFrame.FLAG_REJECT) != 0;
        }

        /** Revision 2 with Enhanced and its IRD/ORD block. */
        boolean enhanced() {
            return irdWord >= 0;
        }

        int ird() {
            return enhanced() ? irdWord & MpaIrdOrd.IRD_ORD_MASK : -1;
        }

        int ord() {
            return enhanced() ? ordWord & MpaIrdOrd.IRD_ORD_MASK : -1;
        }

        /** RFC 6581 peer-to-peer mode asked for (the IRD word's bit 15). */
        boolean peerToPeer() {
            return enhanced() && (irdWord & MpaIrdOrd.PEER_TO_PEER) != 0;
        }

        /** The RTR bits of the ORD word (Write 0x8000, Read 0x4000). */
        int rtr() {
            return enhanced() ? ordWord & (MpaIrdOrd.RDMA_WRITE_RTR | MpaIrdOrd.RDMA_READ_RTR) : 0;
        }
    }

    /**
     * Parses the frame at {@code off} (its 20-byte header and private data present) that should be a
     * request ({@code request}) or a reply: its fields, and in {@link Frame#drop()} why it is invalid
     * ({@link MpaFrame#validate}: key, revision, Enhanced without IRD/ORD; the private data length was
     * checked by the caller).
     */
    static Frame parse(MemorySegment s, long off, boolean request) {
        MpaFrame f = new MpaFrame().wrap(s, off);
        int drop = f.validate(request, Mpa.MAX_PRIVATE_DATA);
        int ird = -1;
        int ord = -1;
        long user = f.privateDataOffset();
        int userLen = f.privateDataLength();
        if (drop == FpduDropReason.OK && f.hasIrdOrd()) {
            MpaIrdOrd io = new MpaIrdOrd().wrap(s, f.privateDataOffset());
            ird = io.irdWord();
            ord = io.ordWord();
            user = f.ulpPrivateDataOffset();
            userLen = f.ulpPrivateDataLength();
        }
        byte[] pd = s.asSlice(user, userLen).toArray(ValueLayout.JAVA_BYTE);
        return new Frame(f.keyKind() == MpaFrame.KEY_REQUEST, f.flags(), f.revision(), ird, ord, drop, pd);
    }

    /**
     * A request or reply frame: revision 2 with Enhanced and the IRD/ORD block when {@code ird >= 0},
     * else revision 1 without it; then {@code privateData}.
     */
    static byte[] frame(boolean request, boolean crc, boolean reject, int ird, int ord, byte[] privateData) {
        boolean v2 = ird >= 0;
        int flags = (crc ? MpaFrame.FLAG_CRC : 0) | (reject ? MpaFrame.FLAG_REJECT : 0) | (v2 ? MpaFrame.FLAG_ENHANCED : 0);
        return frame(request, flags, v2 ? Mpa.REVISION_2 : Mpa.REVISION_1, v2 ? ird : -1, ord, privateData);
    }

    /**
     * A frame with byte 16 {@code flags}, byte 17 {@code revision}, the IRD/ORD words when
     * {@code irdWord >= 0} (written as given: counts and mode bits), then {@code privateData}.
     */
    static byte[] frame(boolean request, int flags, int revision, int irdWord, int ordWord, byte[] privateData) {
        boolean v2 = irdWord >= 0;
        int pdLen = (v2 ? MpaIrdOrd.LENGTH : 0) + privateData.length;
        byte[] b = new byte[MpaFrame.HEADER_LENGTH + pdLen];
        MemorySegment s = MemorySegment.ofArray(b);
        MpaFrame f = new MpaFrame().wrap(s, 0);
        if (request) {
            f.requestKey();
        } else {
            f.replyKey();
        }
        f.flags(flags).revision(revision).privateDataLength(pdLen);
        if (v2) {
            new MpaIrdOrd().wrap(s, f.privateDataOffset()).irdWord(irdWord & 0xffff).ordWord(ordWord & 0xffff);
        }
        MemorySegment.copy(privateData, 0, s, ValueLayout.JAVA_BYTE, MpaFrame.HEADER_LENGTH + (v2 ? MpaIrdOrd.LENGTH : 0),
                privateData.length);
        return b;
    }

    /**
     * siw's answer to a request it refuses before the application sees it (markers asked for,
     * Enhanced without an IRD/ORD block: {@code siw_proc_mpareq}'s {@code reject_conn}): the request's
     * own header with the reply key, M cleared and R set (C, Enhanced, GSO_EXP and the revision as
     * received), an all-zero IRD/ORD block when the request carried one, no private data.
     */
    static byte[] rejectRequest(Frame req) {
        int flags = (req.flags() & ~MpaFrame.FLAG_MARKERS) | MpaFrame.FLAG_REJECT;
        return frame(false, flags, req.revision(), req.drop() == FpduDropReason.OK && req.enhanced() ? 0 : -1, 0, new byte[0]);
    }
}
