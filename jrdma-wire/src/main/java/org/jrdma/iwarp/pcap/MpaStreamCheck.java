package org.jrdma.iwarp.pcap;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import org.jrdma.iwarp.wire.DdpHeader;
import org.jrdma.iwarp.wire.FpduCrc;
import org.jrdma.iwarp.wire.FpduDeframer;
import org.jrdma.iwarp.wire.FpduDropReason;
import org.jrdma.iwarp.wire.FpduHandler;
import org.jrdma.iwarp.wire.Mpa;
import org.jrdma.iwarp.wire.MpaFrame;
import org.jrdma.iwarp.wire.MpaIrdOrd;
import org.jrdma.iwarp.wire.RdmapOpcode;
import org.jrdma.iwarp.wire.ReadRequest;
import org.jrdma.iwarp.wire.Terminate;
import org.jrdma.iwarp.wire.TerminateCodes;
import org.jrdma.rocev2.pcap.PcapReader;

/**
 * The iWARP half of {@code jrdma pcap-check}: finds the iWARP connections of a capture (TCP streams whose
 * first bytes are an MPA key, "MPA ID Req Frame" or "MPA ID Rep Frame"), cuts each direction into its MPA
 * frame and FPDUs with {@link FpduDeframer} as the segments arrive ({@link TcpReassembler}), and checks
 * them: the MPA frame ({@link MpaFrame#validate}), the framing (every FPDU complete, nothing left over at
 * the end of the capture), the CRC (CRC32c when the Reply set C, else a zero field, as {@code tools/roce.py
 * mpa} checks it) and the DDP/RDMAP headers ({@link org.jrdma.iwarp.wire.FpduValidator}). One line per MPA
 * frame and FPDU goes to the line sink, prefixed by the caller ({@link #accept}). A stream whose first
 * segment carries fewer than 16 bytes, or that the capture joined after its first bytes, is not recognized.
 * A tool class: it allocates text.
 */
public final class MpaStreamCheck {
    /** Per direction of an iWARP connection. */
    private final class Stream implements FpduHandler {
        final TcpReassembler.Flow flow;
        final FpduDeframer deframer = new FpduDeframer();
        Stream peer;
        boolean request;
        long frame;

        Stream(TcpReassembler.Flow flow) {
            this.flow = flow;
        }

        @Override
        public void onMpaFrame(MpaFrame f) {
            mpaFrames++;
            StringBuilder b = start();
            b.append(f.isRequest() ? "MPA Request" : "MPA Reply").append(" rev=").append(f.revision())
                .append(" M=").append(bit(f.markers())).append(" C=").append(bit(f.crc()))
                .append(" R=").append(bit(f.reject()));
            if (f.enhanced()) {
                b.append(" Enhanced");
            }
            if (f.gsoExp()) {
                b.append(" GSO_EXP");
            }
            b.append(" private_data=").append(f.privateDataLength());
            if (f.hasIrdOrd()) {
                MpaIrdOrd io = irdOrd.wrap(f.segment(), f.privateDataOffset());
                b.append(" IRD=").append(io.ird()).append(" ORD=").append(io.ord());
                if (io.peerToPeer()) {
                    b.append(" P2P");
                }
                if (io.zeroLengthRtr()) {
                    b.append(" zero-length-RTR");
                }
                if (io.writeRtr()) {
                    b.append(" Write-RTR");
                }
                if (io.readRtr()) {
                    b.append(" Read-RTR");
                }
            }
            if (f.markers()) {
                b.append(" (markers: not supported by siw or jrdma)");
            }
            if (f.isReply()) {
                // the responder's C decides for both directions (RFC 5044 §7.1)
                deframer.crcEnabled(f.crc());
                if (peer != null) {
                    peer.deframer.crcEnabled(f.crc());
                }
            }
            lines.accept(b.toString());
        }

        @Override
        public void onFpdu(MemorySegment seg, long off, int len) {
            fpdus++;
            StringBuilder b = start();
            describe(seg, off, len, b);
            int pad = Mpa.padLength(len);
            long padAt = off + len;
            boolean stale = false;
            for (int i = 0; i < pad; i++) {
                stale |= seg.get(ValueLayout.JAVA_BYTE, padAt + i) != 0;
            }
            if (stale) {
                stalePads++;
                b.append(" pad=");
                for (int i = 0; i < pad; i++) {
                    b.append(String.format("%02x", seg.get(ValueLayout.JAVA_BYTE, padAt + i) & 0xff));
                }
                b.append(" (not zero)");
            }
            int field = seg.get(LE_INT, padAt + pad);
            if (deframer.crcEnabled()) {
                b.append(" CRC ok");
            } else if (field == 0) {
                b.append(" CRC off");
            } else {
                crcFailures++;
                b.append(String.format(" CRC BAD (field 0x%08x without CRC negotiated)", field));
                bad("non-zero CRC field without CRC");
            }
            lines.accept(b.toString());
        }

        @Override
        public void onDrop(int reason, MemorySegment seg, long offset, int length) {
            StringBuilder b = start();
            if (reason == FpduDropReason.BAD_CRC) {
                crcFailures++;
                describe(seg, offset, length, b);
                int pad = Mpa.padLength(length);
                ByteBuffer bb = seg.asByteBuffer();
                int at = (int) offset - Mpa.HEADER_LENGTH;
                int want = crc.compute(bb, at, Mpa.HEADER_LENGTH + length + pad);
                int got = seg.get(LE_INT, offset + length + pad);
                b.append(String.format(" CRC BAD (0x%08x, computed 0x%08x)", got, want));
                bad("bad MPA CRC");
            } else {
                malformed++;
                b.append("MALFORMED: ").append(FpduDropReason.describe(reason));
                int t = FpduDropReason.terminateCodes(reason, length > 0 && (seg.get(ValueLayout.JAVA_BYTE, offset) & 0x80) != 0);
                if (t >= 0) {
                    b.append(" (receiver's Terminate: ").append(TerminateCodes.describe(TerminateCodes.layer(t),
                        TerminateCodes.etype(t), TerminateCodes.ecode(t))).append(')');
                }
                bad(FpduDropReason.describe(reason));
            }
            lines.accept(b.toString());
        }

        private StringBuilder start() {
            StringBuilder b = new StringBuilder(160);
            b.append(prefix.apply(flow)).append(' ');
            return b;
        }

        private void bad(String what) {
            if (firstBad == null) {
                firstBad = "frame " + frame + ": " + what;
            }
        }
    }

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final Map<TcpReassembler.Flow, Stream> streams = new HashMap<>();
    private final TcpReassembler reassembler;
    private final Consumer<String> lines;
    private java.util.function.Function<TcpReassembler.Flow, String> prefix = TcpReassembler.Flow::name;
    private final DdpHeader ddp = new DdpHeader();
    private final ReadRequest rreq = new ReadRequest();
    private final Terminate term = new Terminate();
    private final MpaIrdOrd irdOrd = new MpaIrdOrd();
    private final FpduCrc crc = new FpduCrc();
    private long mpaFrames;
    private long fpdus;
    private long crcFailures;
    private long malformed;
    private long stalePads;
    private String firstBad;

    /** A check that sends one line per MPA frame and FPDU to {@code lines}. */
    public MpaStreamCheck(Consumer<String> lines) {
        this.lines = lines;
        this.reassembler = new TcpReassembler(this::onData);
    }

    /**
     * Takes the reader's current frame (does nothing unless it is TCP). Lines for the frames it completes
     * start with {@code prefix}{@code (flow)} (e.g. frame number, time, addresses).
     */
    public void accept(PcapReader r, java.util.function.Function<TcpReassembler.Flow, String> prefix) {
        this.prefix = prefix;
        reassembler.accept(r);
    }

    private void onData(TcpReassembler.Flow flow, byte[] data, int off, int len, long frame) {
        Stream s = streams.get(flow);
        if (s == null) {
            if (streams.containsKey(flow) || flow.bytes() != len || len < MpaFrame.KEY_LENGTH) {
                streams.put(flow, null); // not starting with an MPA key: not iWARP (or joined mid-stream)
                return;
            }
            MpaFrame probe = new MpaFrame().wrap(MemorySegment.ofArray(data), off);
            int kind = probe.keyKind();
            if (kind == MpaFrame.KEY_OTHER) {
                streams.put(flow, null);
                return;
            }
            s = new Stream(flow);
            s.request = kind == MpaFrame.KEY_REQUEST;
            if (s.request) {
                s.deframer.expectMpaRequest();
            } else {
                s.deframer.expectMpaReply();
            }
            TcpReassembler.Flow rev = reassembler.reverse(flow);
            Stream p = rev != null ? streams.get(rev) : null;
            if (p != null) {
                s.peer = p;
                p.peer = s;
            }
            streams.put(flow, s);
        }
        s.frame = frame;
        s.deframer.feed(ByteBuffer.wrap(data, off, len), s);
    }

    /**
     * Appends the description of the ULPDU at {@code seg[off, off+len)}: opcode name, L, the DDP fields,
     * the RDMAP header fields (Read Request, Send with Invalidate, Terminate) and the payload length.
     */
    public void describe(MemorySegment seg, long off, int len, StringBuilder b) {
        if (len < 2) {
            b.append("ULPDU of ").append(len).append(" bytes");
            return;
        }
        DdpHeader d = ddp.wrap(seg, off);
        int op = d.opcode();
        b.append(RdmapOpcode.name(op)).append(d.tagged() ? " (tagged)" : "").append(" L=").append(bit(d.last()));
        int header = RdmapOpcode.isValid(op) ? RdmapOpcode.headerLength(op) : d.length();
        if (len < Math.min(header, d.length())) {
            b.append(" ulpdu=").append(len);
            return;
        }
        if (d.tagged()) {
            b.append(String.format(Locale.ROOT, " STag=0x%08x TO=0x%016x", d.stag(), d.taggedOffset()));
        } else {
            b.append(" QN=").append(d.queueNumber()).append(" MSN=").append(Integer.toUnsignedString(d.msn()))
                .append(" MO=").append(Integer.toUnsignedString(d.messageOffset()));
            if (RdmapOpcode.isInvalidate(op)) {
                b.append(String.format(Locale.ROOT, " InvalidateSTag=0x%08x", d.invalidateStag()));
            }
        }
        if (op == RdmapOpcode.RDMA_READ_REQUEST && len >= header) {
            ReadRequest r = rreq.wrap(seg, off + DdpHeader.UNTAGGED_LENGTH);
            b.append(String.format(Locale.ROOT, " sink STag=0x%08x TO=0x%016x size=%d source STag=0x%08x TO=0x%016x",
                r.sinkStag(), r.sinkTaggedOffset(), r.readSize() & 0xffffffffL, r.sourceStag(), r.sourceTaggedOffset()));
        } else if (op == RdmapOpcode.TERMINATE && len >= header) {
            Terminate t = term.wrap(seg, off + DdpHeader.UNTAGGED_LENGTH);
            b.append(String.format(Locale.ROOT, " control=0x%08x", t.controlWord()));
            t.layout(Terminate.RFC_5040);
            b.append(" RFC 5040: ").append(TerminateCodes.describe(t.layer(), t.etype(), t.errorCode()))
                .append(" M=").append(bit(t.segmentLengthValid())).append(" D=").append(bit(t.ddpHeaderIncluded()))
                .append(" R=").append(bit(t.rdmaHeaderIncluded()));
            t.layout(Terminate.SIW_X86);
            b.append("; siw x86: ").append(TerminateCodes.describe(t.layer(), t.etype(), t.errorCode()));
            t.layout(Terminate.RFC_5040);
        }
        if (header > 0 && len >= header) {
            b.append(" payload=").append(len - header);
        }
    }

    /** Ends the check: flags streams cut in the middle of a frame or with capture gaps. */
    public void finish() {
        for (Stream s : streams.values()) {
            if (s == null) {
                continue;
            }
            if (s.deframer.expectingMpaFrame() && !s.deframer.failed()) {
                malformed++;
                lines.accept(s.flow.name() + " MALFORMED: the capture ends inside the MPA frame");
                s.bad("MPA frame cut short");
            } else if (s.deframer.buffered() > 0) {
                // a capture may well stop inside an FPDU; not an error of the sender, but said
                lines.accept(s.flow.name() + " " + s.deframer.buffered() + " bytes of an FPDU not complete at the end of the capture");
            }
            if (s.flow.bytesAfterGap() > 0) {
                lines.accept(s.flow.name() + " " + s.flow.bytesAfterGap() + " bytes after a segment missing from the capture, not checked");
            }
        }
    }

    /** Directions of TCP connections recognized as iWARP. */
    public long streams() {
        long n = 0;
        for (Stream s : streams.values()) {
            if (s != null) {
                n++;
            }
        }
        return n;
    }

    /** MPA Request/Reply frames seen. */
    public long mpaFrames() {
        return mpaFrames;
    }

    /** Well-formed FPDUs seen (including those with a non-zero CRC field without CRC). */
    public long fpdus() {
        return fpdus;
    }

    /** FPDUs with a wrong CRC32c, or a non-zero CRC field without CRC. */
    public long crcFailures() {
        return crcFailures;
    }

    /** Malformed MPA frames and FPDUs. */
    public long malformed() {
        return malformed;
    }

    /** FPDUs whose pad bytes are not zero (siw sends the bytes after the payload; RFC 5044 §4.1 wants zeros). */
    public long nonZeroPads() {
        return stalePads;
    }

    /** "frame N: what" for the first failure, or null. */
    public String firstBad() {
        return firstBad;
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }
}
