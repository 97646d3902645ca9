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
     * @param ird the RFC 6581 IRD (14 bits) when {@link #enhanced()}, else -1; {@code ord} likewise
     * @param privateData the application's private data (after the IRD/ORD block)
     */
    record Frame(boolean request, boolean markers, boolean crc, boolean reject, int revision, int ird, int ord,
                 byte[] privateData) {
        boolean enhanced() {
            return ird >= 0;
        }
    }

    /**
     * Parses the frame at {@code off} (its 20-byte header and private data present), or null when it
     * is not a valid {@code request}/reply frame ({@link MpaFrame#validate}: key, revision, lengths).
     */
    static Frame parse(MemorySegment s, long off, boolean request) {
        MpaFrame f = new MpaFrame().wrap(s, off);
        if (f.validate(request, Mpa.MAX_PRIVATE_DATA) != FpduDropReason.OK) {
            return null;
        }
        int ird = -1;
        int ord = -1;
        if (f.hasIrdOrd()) {
            MpaIrdOrd io = new MpaIrdOrd().wrap(s, f.privateDataOffset());
            ird = io.ird();
            ord = io.ord();
        }
        byte[] user = s.asSlice(f.ulpPrivateDataOffset(), f.ulpPrivateDataLength()).toArray(ValueLayout.JAVA_BYTE);
        return new Frame(f.isRequest(), f.markers(), f.crc(), f.reject(), f.revision(), ird, ord, user);
    }

    /**
     * A request or reply frame: revision 2 with Enhanced and the IRD/ORD block when {@code ird >= 0},
     * else revision 1 without it; then {@code privateData}.
     */
    static byte[] frame(boolean request, boolean crc, boolean reject, int ird, int ord, byte[] privateData) {
        boolean v2 = ird >= 0;
        int pdLen = (v2 ? MpaIrdOrd.LENGTH : 0) + privateData.length;
        byte[] b = new byte[MpaFrame.HEADER_LENGTH + pdLen];
        MemorySegment s = MemorySegment.ofArray(b);
        MpaFrame f = new MpaFrame().wrap(s, 0);
        if (request) {
            f.requestKey();
        } else {
            f.replyKey();
        }
        f.flags(0).crc(crc).reject(reject).enhanced(v2).revision(v2 ? Mpa.REVISION_2 : Mpa.REVISION_1).privateDataLength(pdLen);
        if (v2) {
            new MpaIrdOrd().wrap(s, f.privateDataOffset()).irdWord(0).ordWord(0).ird(ird).ord(ord);
        }
        MemorySegment.copy(privateData, 0, s, ValueLayout.JAVA_BYTE, f.ulpPrivateDataOffset(), privateData.length);
        return b;
    }
}
