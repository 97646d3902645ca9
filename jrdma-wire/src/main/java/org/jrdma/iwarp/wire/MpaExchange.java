package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;

/**
 * Writes MPA Request, Reply and reject frames as Linux siw sends them and computes the RFC 6581 IRD/ORD and
 * RTR outcome of the exchange as siw does ({@code siw_cm.c}: {@code siw_connect}, {@code siw_proc_mpareq},
 * {@code siw_accept}, {@code siw_proc_mpareply}, {@code siw_send_mpareqrep}). Stateless and thread-safe; the
 * writers allocate two small flyweights per call (connection setup, not the data path).
 *
 * <p>RTR bits are passed as one int: the IRD word's flags ({@link MpaIrdOrd#PEER_TO_PEER},
 * {@link MpaIrdOrd#ZERO_LENGTH_RTR}) shifted left by 16, or'ed with the ORD word's
 * ({@link MpaIrdOrd#RDMA_WRITE_RTR}, {@link MpaIrdOrd#RDMA_READ_RTR}): {@link #RTR_WRITE}, {@link #RTR_READ},
 * {@code RTR_WRITE | RTR_READ}, 0 for no peer-to-peer mode.
 *
 * <p>siw's frames: revision 2 with the Enhanced flag, the 4-byte IRD/ORD block first in the private data, the
 * application's private data (rdma_cm's {@code conn_param.private_data}) after it; C set when CRC is wanted
 * (initiator) or in use (responder: when the initiator asked for it or local policy requires it). A reject
 * is the Request turned into a Reply: Reply key, R set, M cleared, the Request's other flags and revision,
 * and no application private data; when the request was Enhanced (revision 2, Enhanced flag, at least 4
 * bytes of private data) siw still sends the 4-byte IRD/ORD block, zero (siw has not computed it when it
 * rejects for markers), else no private data.
 */
public final class MpaExchange {
    private MpaExchange() {
    }

    /**
     * Writes an Enhanced revision 2 MPA Request at {@code seg[off, ...)}.
     *
     * @param crc        C: ask for CRC
     * @param ird        the initiator's IRD, 0..16383 (masked)
     * @param ord        the initiator's ORD, 0..16383 (masked)
     * @param rtr        RTR bits (class comment): 0 for siw's default (not peer-to-peer), {@link #RTR_WRITE},
     *                   {@link #RTR_READ} or both
     * @param pd         the application's private data, {@code pd[pdOff, pdOff + pdLen)}; may be null when pdLen is 0
     * @return the frame's length, 24 + pdLen
     * @throws IllegalArgumentException  if pdLen is negative or above 508 (512 with the IRD/ORD block, RFC 5044 §7.1)
     * @throws IndexOutOfBoundsException if the frame does not fit in {@code seg}
     */
    public static int writeRequest(MemorySegment seg, long off, boolean crc, int ird, int ord, int rtr,
                                   MemorySegment pd, long pdOff, int pdLen) {
        return write(seg, off, true, crc, ird, ord, rtr, pd, pdOff, pdLen);
    }

    /**
     * Writes an Enhanced revision 2 MPA Reply (an accept) at {@code seg[off, ...)}; arguments as
     * {@link #writeRequest}, with the responder's IRD, ORD and RTR choice ({@link #replyRtr}).
     *
     * @return the frame's length, 24 + pdLen
     */
    public static int writeReply(MemorySegment seg, long off, boolean crc, int ird, int ord, int rtr,
                                 MemorySegment pd, long pdOff, int pdLen) {
        return write(seg, off, false, crc, ird, ord, rtr, pd, pdOff, pdLen);
    }

    /** RTR bits for {@link #writeRequest}: peer-to-peer, an RDMA Write (zero length) may be the RTR frame. */
    public static final int RTR_WRITE = MpaIrdOrd.PEER_TO_PEER << 16 | MpaIrdOrd.RDMA_WRITE_RTR;
    /** RTR bits for {@link #writeRequest}: peer-to-peer, an RDMA Read (zero length) may be the RTR frame. */
    public static final int RTR_READ = MpaIrdOrd.PEER_TO_PEER << 16 | MpaIrdOrd.RDMA_READ_RTR;

    /**
     * Writes the reject siw answers {@code request} with (see the class comment) at {@code seg[off, ...)};
     * {@code seg} may be the request's own bytes ({@code off == request.offset()}), as siw does.
     *
     * @param request a received Request (20 header bytes read)
     * @return the reject's length: 24 for an Enhanced request, else 20
     */
    public static int writeReject(MpaFrame request, MemorySegment seg, long off) {
        boolean enhanced = request.hasIrdOrd();
        int flags = (request.flags() & ~MpaFrame.FLAG_MARKERS) | MpaFrame.FLAG_REJECT;
        int rev = request.revision();
        MpaFrame f = new MpaFrame().wrap(seg, off).replyKey().flags(flags).revision(rev);
        if (enhanced) {
            f.privateDataLength(MpaIrdOrd.LENGTH);
            new MpaIrdOrd().wrap(seg, f.privateDataOffset()).irdWord(0).ordWord(0);
            return MpaFrame.HEADER_LENGTH + MpaIrdOrd.LENGTH;
        }
        f.privateDataLength(0);
        return MpaFrame.HEADER_LENGTH;
    }

    /**
     * The responder's IRD for a request (siw {@code siw_proc_mpareq}): the initiator's ORD, at most
     * {@code maxIrd}.
     */
    public static int responderIrd(MpaIrdOrd request, int maxIrd) {
        return Math.min(request.ord(), maxIrd);
    }

    /** The responder's ORD for a request: the initiator's IRD, at most {@code maxOrd}. */
    public static int responderOrd(MpaIrdOrd request, int maxOrd) {
        return Math.min(request.ird(), maxOrd);
    }

    /**
     * The RTR bits of the reply to {@code request} (siw {@code siw_proc_mpareq}): 0 if the request is not
     * peer-to-peer; else peer-to-peer with Write if the request offers Write, else Read if it offers Read,
     * else Write ("writes are preferred"; Send is not supported as RTR). In the form {@link #writeReply} takes.
     */
    public static int replyRtr(MpaIrdOrd request) {
        if (!request.peerToPeer()) {
            return 0;
        }
        if (request.writeRtr()) {
            return RTR_WRITE;
        }
        return request.readRtr() ? RTR_READ : RTR_WRITE;
    }

    /**
     * The initiator's check of an accepted Reply (siw {@code siw_proc_mpareply}, without
     * {@code relaxed_ird_negotiation}): the reply's ORD must not exceed the initiator's IRD, and the
     * initiator's ORD must not exceed the reply's IRD, else {@link TerminateCodes#LLP_INSUFFICIENT_IRD}; if
     * the request was peer-to-peer with RTR choices, the reply must pick one of them, else
     * {@link TerminateCodes#LLP_NO_MATCHING_RTR}.
     *
     * @param localIrd   the IRD the initiator sent
     * @param localOrd   the ORD the initiator sent
     * @param requestRtr the RTR bits the initiator sent ({@link #writeRequest}'s {@code rtr})
     * @param reply      the reply's IRD/ORD block
     * @return 0 when the reply is acceptable, else the MPA error code of the Terminate (layer LLP, type MPA)
     *         the initiator sends before closing
     */
    public static int checkReply(int localIrd, int localOrd, int requestRtr, MpaIrdOrd reply) {
        if (reply.ord() > localIrd || localOrd > reply.ird()) {
            return TerminateCodes.LLP_INSUFFICIENT_IRD;
        }
        int asked = requestRtr & (MpaIrdOrd.RDMA_WRITE_RTR | MpaIrdOrd.RDMA_READ_RTR);
        if ((requestRtr >>> 16 & MpaIrdOrd.PEER_TO_PEER) != 0 && asked != 0 && (reply.ordWord() & asked) == 0) {
            return TerminateCodes.LLP_NO_MATCHING_RTR;
        }
        return 0;
    }

    /**
     * The RTR frame the initiator sends after an accepted peer-to-peer Reply (siw {@code siw_qp_mpa_rts}):
     * {@link RdmapOpcode#RDMA_WRITE} (zero length, STag 1, TO 0) if the reply picked Write,
     * {@link RdmapOpcode#RDMA_READ_REQUEST} (zero length) if Read, -1 for no RTR frame.
     */
    public static int rtrOpcode(int requestRtr, MpaIrdOrd reply) {
        if ((requestRtr >>> 16 & MpaIrdOrd.PEER_TO_PEER) == 0) {
            return -1;
        }
        int picked = reply.ordWord() & requestRtr & (MpaIrdOrd.RDMA_WRITE_RTR | MpaIrdOrd.RDMA_READ_RTR);
        if ((picked & MpaIrdOrd.RDMA_WRITE_RTR) != 0) {
            return RdmapOpcode.RDMA_WRITE;
        }
        return (picked & MpaIrdOrd.RDMA_READ_RTR) != 0 ? RdmapOpcode.RDMA_READ_REQUEST : -1;
    }

    private static int write(MemorySegment seg, long off, boolean request, boolean crc, int ird, int ord, int rtr,
                             MemorySegment pd, long pdOff, int pdLen) {
        if (pdLen < 0 || pdLen > Mpa.MAX_PRIVATE_DATA - MpaIrdOrd.LENGTH) {
            throw new IllegalArgumentException("MPA private data must be 0.." + (Mpa.MAX_PRIVATE_DATA - MpaIrdOrd.LENGTH)
                + " bytes after the IRD/ORD block: " + pdLen);
        }
        int total = MpaFrame.HEADER_LENGTH + MpaIrdOrd.LENGTH + pdLen;
        if (off < 0 || off > seg.byteSize() - total) {
            throw new IndexOutOfBoundsException("MPA frame of " + total + " bytes at " + off + " outside " + seg.byteSize());
        }
        MpaFrame f = new MpaFrame().wrap(seg, off);
        if (request) {
            f.requestKey();
        } else {
            f.replyKey();
        }
        f.flags((crc ? MpaFrame.FLAG_CRC : 0) | MpaFrame.FLAG_ENHANCED).revision(Mpa.REVISION_2)
            .privateDataLength(MpaIrdOrd.LENGTH + pdLen);
        int irdWord = (rtr >>> 16 & (MpaIrdOrd.PEER_TO_PEER | MpaIrdOrd.ZERO_LENGTH_RTR)) | (ird & MpaIrdOrd.IRD_ORD_MASK);
        int ordWord = (rtr & (MpaIrdOrd.RDMA_WRITE_RTR | MpaIrdOrd.RDMA_READ_RTR)) | (ord & MpaIrdOrd.IRD_ORD_MASK);
        new MpaIrdOrd().wrap(seg, f.privateDataOffset()).irdWord(irdWord).ordWord(ordWord);
        if (pdLen > 0) {
            MemorySegment.copy(pd, pdOff, seg, f.privateDataOffset() + MpaIrdOrd.LENGTH, pdLen);
        }
        return total;
    }
}
