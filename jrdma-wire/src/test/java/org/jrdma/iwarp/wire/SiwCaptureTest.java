package org.jrdma.iwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden tests on the siw ↔ siw captures (Linux 6.1 siw, {@code testdata/captures/README.md}): every MPA
 * Request/Reply and every FPDU of every iWARP TCP stream is parsed with the flyweights and re-encoded from
 * the parsed field values with the setters and {@link FpduFramer}; the bytes must be the captured ones. The
 * expected counts per stream are those of the lab's independent decoder ({@code tools/roce.py mpa}, see the
 * captures' README) and the CRC values are checked with the JDK's {@link CRC32C} over the raw stream bytes.
 */
class SiwCaptureTest {

    static List<String> files() {
        return SiwStreams.files();
    }

    /** roce.py mpa: FPDUs per stream, request direction first, in order of the connections. */
    private static final Map<String, int[]> FPDUS = Map.of(
        "siw-rping.pcap", new int[] {9, 12},
        "siw-crc-rping.pcap", new int[] {9, 12},
        "siw-write-bw.pcap", new int[] {16, 16, 30, 0},
        "siw-crc-write-bw.pcap", new int[] {16, 16, 30, 0},
        "siw-send-bw.pcap", new int[] {11, 11, 30, 2},
        "siw-read-bw.pcap", new int[] {16, 16, 5, 30});

    @ParameterizedTest
    @MethodSource("files")
    void everyStreamIsCutIntoTheFpdusRocePyFinds(String file) {
        List<SiwStreams.Stream> streams = SiwStreams.streams(file);
        int[] expected = FPDUS.get(file);
        assertEquals(expected.length, streams.size(), file + ": iWARP streams");
        for (int i = 0; i < streams.size(); i++) {
            SiwStreams.Stream s = streams.get(i);
            assertNotNull(s.mpaFrame, s + ": MPA frame");
            assertEquals(i % 2 == 0, s.isRequestSide(), s + ": request direction first");
            assertEquals(expected[i], s.fpdus.size(), s + ": FPDUs");
            assertEquals(List.of(), s.drops, s + ": drops");
            assertEquals(0, s.deframer.totalDrops(), s + ": drops counted");
            assertEquals(0, s.deframer.buffered(), s + ": bytes left after the last FPDU");
            assertEquals(0, s.flow.bytesAfterGap(), s + ": capture gaps");
            assertEquals(expected[i], s.deframer.fpdus());
            long sum = s.mpaFrame.length;
            for (byte[] f : s.fpdus) {
                sum += f.length;
            }
            assertEquals(s.raw.size(), sum, s + ": the frames tile the whole stream");
        }
    }

    @ParameterizedTest
    @MethodSource("files")
    void mpaFramesAreSiwRevision2EnhancedWithIrdOrd(String file) {
        boolean crc = file.startsWith("siw-crc-");
        List<SiwStreams.Stream> streams = SiwStreams.streams(file);
        for (SiwStreams.Stream s : streams) {
            MemorySegment seg = MemorySegment.ofArray(s.mpaFrame);
            MpaFrame f = new MpaFrame().wrap(seg, 0);
            assertEquals(s.isRequestSide() ? MpaFrame.KEY_REQUEST : MpaFrame.KEY_REPLY, f.keyKind());
            assertEquals(s.isRequestSide() ? "MPA ID Req Frame" : "MPA ID Rep Frame", f.key());
            assertEquals(Mpa.REVISION_2, f.revision());
            assertTrue(f.enhanced(), "siw sets MPA_RR_FLAG_ENHANCED");
            assertFalse(f.markers());
            assertFalse(f.reject());
            assertFalse(f.gsoExp());
            assertEquals(crc, f.crc(), s + ": C");
            assertEquals(4, f.privateDataLength(), "perftest -R and rping send no private data of their own");
            assertTrue(f.hasIrdOrd());
            assertEquals(0, f.ulpPrivateDataLength());
            assertEquals(FpduDropReason.OK, f.validate(s.isRequestSide(), Mpa.SIW_MAX_PRIVATE_DATA));
            MpaIrdOrd io = new MpaIrdOrd().wrap(seg, f.privateDataOffset());
            int expected = file.contains("rping") ? 1 : 0;
            if (file.equals("siw-read-bw.pcap") && streams.indexOf(s) >= 2) {
                expected = 0x80; // ib_read_bw's second connection: IRD/ORD 128 (README)
            }
            assertEquals(expected, io.ird(), s + ": IRD");
            assertEquals(expected, io.ord(), s + ": ORD");
            assertFalse(io.peerToPeer(), "siw's default is not peer-to-peer");
            assertFalse(io.zeroLengthRtr());
            assertFalse(io.writeRtr());
            assertFalse(io.readRtr());

            // re-encode from the values
            byte[] out = new byte[MpaFrame.HEADER_LENGTH + f.privateDataLength()];
            MemorySegment o = MemorySegment.ofArray(out);
            MpaFrame g = new MpaFrame().wrap(o, 0);
            if (f.isRequest()) {
                g.requestKey();
            } else {
                g.replyKey();
            }
            g.markers(f.markers()).crc(f.crc()).reject(f.reject()).enhanced(f.enhanced()).gsoExp(f.gsoExp())
                .revision(f.revision()).privateDataLength(f.privateDataLength());
            new MpaIrdOrd().wrap(o, g.privateDataOffset()).ird(io.ird()).ord(io.ord()).peerToPeer(io.peerToPeer())
                .zeroLengthRtr(io.zeroLengthRtr()).writeRtr(io.writeRtr()).readRtr(io.readRtr());
            assertArrayEquals(s.mpaFrame, out, s + ": MPA frame re-encoded");
        }
    }

    @ParameterizedTest
    @MethodSource("files")
    void everyFpduReencodesByteForByte(String file) {
        boolean crc = file.startsWith("siw-crc-");
        FpduFramer framer = new FpduFramer().crcEnabled(crc);
        DdpHeader d = new DdpHeader();
        DdpHeader e = new DdpHeader();
        ReadRequest rr = new ReadRequest();
        ReadRequest rw = new ReadRequest();
        int n = 0;
        int stalePads = 0;
        for (SiwStreams.Stream s : SiwStreams.streams(file)) {
            for (byte[] fpdu : s.fpdus) {
                MemorySegment in = MemorySegment.ofArray(fpdu);
                int ulpdu = (fpdu[0] & 0xff) << 8 | (fpdu[1] & 0xff);
                assertEquals(Mpa.fpduLength(ulpdu), fpdu.length);
                d.wrap(in, 2);
                int op = d.opcode();
                assertEquals(DdpHeader.DDP_VERSION, d.ddpVersion());
                assertEquals(RdmapOpcode.RDMAP_VERSION, d.rdmapVersion());
                assertEquals(0, d.ddpReserved());
                assertEquals(0, d.rdmapReserved());
                assertEquals(RdmapOpcode.isTagged(op), d.tagged());
                int header = RdmapOpcode.headerLength(op);
                ByteBuffer out = ByteBuffer.allocate(fpdu.length);
                MemorySegment o = MemorySegment.ofBuffer(out);
                e.wrap(o, 2).control(op, d.last());
                if (d.tagged()) {
                    e.stag(d.stag()).taggedOffset(d.taggedOffset());
                } else {
                    e.rsvdUlp(d.rsvdUlp()).queueNumber(d.queueNumber()).msn(d.msn()).messageOffset(d.messageOffset());
                    assertEquals(RdmapOpcode.queueNumber(op), d.queueNumber());
                }
                if (op == RdmapOpcode.RDMA_READ_REQUEST) {
                    rr.wrap(in, 2 + DdpHeader.UNTAGGED_LENGTH);
                    rw.wrap(o, 2 + DdpHeader.UNTAGGED_LENGTH).sinkStag(rr.sinkStag()).sinkTaggedOffset(rr.sinkTaggedOffset())
                        .readSize(rr.readSize()).sourceStag(rr.sourceStag()).sourceTaggedOffset(rr.sourceTaggedOffset());
                    assertEquals(header, ulpdu, "a Read Request has no payload");
                }
                out.put(2 + header, fpdu, 2 + header, ulpdu - header); // payload
                assertEquals(fpdu.length, framer.frame(out, 0, ulpdu));
                int pad = Mpa.padLength(ulpdu);
                int padAt = 2 + ulpdu;
                if (!Arrays.equals(fpdu, padAt, padAt + pad, out.array(), padAt, padAt + pad)) {
                    // siw sends the bytes after the payload in its buffer as pad (RFC 5044 §4.1 wants zeros):
                    // the framer's zero pad and, with CRC, the CRC differ; with siw's pad bytes the CRC over
                    // them (FpduCrc, the framer's algorithm) must give siw's bytes
                    stalePads++;
                    assertArrayEquals(Arrays.copyOf(fpdu, padAt), Arrays.copyOf(out.array(), padAt));
                    out.put(padAt, fpdu, padAt, pad);
                    FpduCrc.write(out, padAt + pad, crc ? new FpduCrc().compute(out, 0, padAt + pad) : 0);
                }
                assertArrayEquals(fpdu, out.array(), s + " FPDU " + n + " (" + RdmapOpcode.name(op) + ")");
                n++;
            }
        }
        assertTrue(n > 20, "FPDUs checked: " + n);
        // the only padded FPDUs are perftest's two 2-byte Sends of each bw run, padded with "00 40"
        assertEquals(file.contains("rping") ? 0 : 2, stalePads, "FPDUs with siw's stale pad bytes");
    }

    @ParameterizedTest
    @MethodSource("files")
    void crcFieldIsCrc32cLittleEndianWhenNegotiatedElseZero(String file) {
        boolean crc = file.startsWith("siw-crc-");
        CRC32C c = new CRC32C();
        for (SiwStreams.Stream s : SiwStreams.streams(file)) {
            assertEquals(crc, s.deframer.crcEnabled(), s + ": deframer follows the Reply's C");
            for (byte[] fpdu : s.fpdus) {
                int at = fpdu.length - 4;
                long field = (fpdu[at] & 0xffL) | (fpdu[at + 1] & 0xffL) << 8 | (fpdu[at + 2] & 0xffL) << 16
                    | (fpdu[at + 3] & 0xffL) << 24;
                if (crc) {
                    c.reset();
                    c.update(fpdu, 0, at);
                    assertEquals(c.getValue(), field, s + ": CRC32c");
                } else {
                    assertEquals(0, field, s + ": CRC field zero without CRC");
                }
            }
            assertEquals(0, s.deframer.nonZeroCrcFields());
        }
    }

    @Test
    void aBadCrcIsDroppedAndCountedAndTheStreamGoesOn() {
        SiwStreams.Stream s = SiwStreams.streams("siw-crc-rping.pcap").get(1);
        byte[] stream = s.raw.toByteArray();
        int second = s.mpaFrame.length + s.fpdus.get(0).length;
        stream[second + 20] ^= 0x01; // a bit of the second FPDU's ULPDU
        FpduDeframer d = new FpduDeframer().expectMpaReply();
        List<Integer> drops = new ArrayList<>();
        int[] fpdus = {0};
        d.feed(ByteBuffer.wrap(stream), new FpduHandler() {
            @Override
            public void onFpdu(MemorySegment seg, long off, int len) {
                fpdus[0]++;
            }

            @Override
            public void onMpaFrame(MpaFrame f) {
                d.crcEnabled(f.crc());
            }

            @Override
            public void onDrop(int reason, MemorySegment seg, long offset, int length) {
                drops.add(reason);
                assertEquals(s.fpdus.get(1).length - 2 - Mpa.padLength(length) - 4, length, "the dropped ULPDU");
            }
        });
        assertEquals(List.of(FpduDropReason.BAD_CRC), drops);
        assertEquals(1, d.drops(FpduDropReason.BAD_CRC));
        assertEquals(s.fpdus.size() - 1, fpdus[0]);
        int packed = FpduDropReason.terminateCodes(FpduDropReason.BAD_CRC, false);
        assertEquals(TerminateCodes.LAYER_LLP, TerminateCodes.layer(packed));
        assertEquals(TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.etype(packed));
        assertEquals(0x02, TerminateCodes.ecode(packed), "RFC 5044 §8: CRC error");
    }

    @Test
    void siwCutsAWriteInFpdusThatFillTheMss() {
        // ib_write_bw -s 8192 over MSS 1448: 5 FPDUs of 1428 payload bytes and one of 1052 (README)
        SiwStreams.Stream s = SiwStreams.streams("siw-write-bw.pcap").get(2);
        TreeMap<Integer, Integer> sizes = new TreeMap<>();
        for (byte[] f : s.fpdus) {
            sizes.merge(f.length, 1, Integer::sum);
        }
        assertEquals(Map.of(1448, 25, 1072, 5), sizes);
        assertEquals(1428, Mpa.maxPayload(1448, DdpHeader.TAGGED_LENGTH));
        assertEquals(8192 - 5 * 1428 + DdpHeader.TAGGED_LENGTH, 1066);
    }
}
