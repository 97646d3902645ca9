package org.jrdma.iwarp.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.iwarp.pcap.TcpReassembler;
import org.jrdma.rocev2.pcap.PcapReader;

/**
 * The iWARP TCP streams of the siw reference captures ({@code testdata/captures/siw-*.pcap}), cut into the
 * MPA frame and FPDUs by {@link FpduDeframer} as the bytes arrive frame by frame (with CRC on when the
 * Reply of the connection set C). Also gives the raw reassembled streams for independent checks.
 */
final class SiwStreams {
    /** One direction of an iWARP connection. */
    static final class Stream {
        final String name;
        final TcpReassembler.Flow flow;
        final FpduDeframer deframer = new FpduDeframer();
        byte[] mpaFrame;
        final List<byte[]> fpdus = new ArrayList<>();
        final List<Integer> drops = new ArrayList<>();
        final java.io.ByteArrayOutputStream raw = new java.io.ByteArrayOutputStream();
        Stream peer;

        Stream(TcpReassembler.Flow flow) {
            this.flow = flow;
            this.name = flow.name();
        }

        boolean isRequestSide() {
            return mpaFrame != null && new String(mpaFrame, 0, 16, StandardCharsets.US_ASCII).equals("MPA ID Req Frame");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private SiwStreams() {
    }

    static Path dir() {
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures").toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new IllegalStateException("reference captures not found: " + p);
        }
        return p;
    }

    static List<String> files() {
        return List.of("siw-rping.pcap", "siw-write-bw.pcap", "siw-send-bw.pcap", "siw-read-bw.pcap",
            "siw-crc-rping.pcap", "siw-crc-write-bw.pcap");
    }

    private static final Map<String, List<Stream>> CACHE = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The iWARP streams of one capture (flows whose first bytes are an MPA key), in order of first appearance;
     * parsed once per file (callers must not change them).
     */
    static List<Stream> streams(String file) {
        return CACHE.computeIfAbsent(file, SiwStreams::parse);
    }

    private static List<Stream> parse(String file) {
        Map<TcpReassembler.Flow, Stream> byFlow = new LinkedHashMap<>();
        List<Stream> out = new ArrayList<>();
        TcpReassembler[] holder = new TcpReassembler[1];
        TcpReassembler.Listener l = (flow, data, off, len, frame) -> {
            Stream s = byFlow.get(flow);
            if (s == null) {
                if (flow.bytes() - len != 0 || len < 16) {
                    byFlow.put(flow, null);
                    return;
                }
                String key = new String(data, off, 16, StandardCharsets.ISO_8859_1);
                if (!key.equals("MPA ID Req Frame") && !key.equals("MPA ID Rep Frame")) {
                    return; // perftest's or other TCP: not iWARP
                }
                s = new Stream(flow);
                if (key.startsWith("MPA ID Req")) {
                    s.deframer.expectMpaRequest();
                } else {
                    s.deframer.expectMpaReply();
                }
                byFlow.put(flow, s);
                out.add(s);
                TcpReassembler.Flow rev = holder[0].reverse(flow);
                if (rev != null && byFlow.get(rev) != null) {
                    s.peer = byFlow.get(rev);
                    s.peer.peer = s;
                }
            }
            Stream st = s;
            st.raw.write(data, off, len);
            st.deframer.feed(ByteBuffer.wrap(data, off, len), new FpduHandler() {
                @Override
                public void onFpdu(MemorySegment seg, long ulpduOffset, int ulpduLength) {
                    byte[] b = new byte[Mpa.fpduLength(ulpduLength)];
                    MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, ulpduOffset - 2, b, 0, b.length);
                    st.fpdus.add(b);
                }

                @Override
                public void onMpaFrame(MpaFrame f) {
                    byte[] b = new byte[f.length()];
                    MemorySegment.copy(f.segment(), ValueLayout.JAVA_BYTE, f.offset(), b, 0, b.length);
                    st.mpaFrame = b;
                    if (f.isReply()) {
                        // the responder's C decides for both directions (RFC 5044 §7.1)
                        st.deframer.crcEnabled(f.crc());
                        if (st.peer != null) {
                            st.peer.deframer.crcEnabled(f.crc());
                        }
                    }
                }

                @Override
                public void onDrop(int reason, MemorySegment seg, long offset, int length) {
                    st.drops.add(reason);
                }
            });
        };
        TcpReassembler ra = new TcpReassembler(l);
        holder[0] = ra;
        try (PcapReader r = PcapReader.open(dir().resolve(file))) {
            while (r.next()) {
                ra.accept(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static byte[] slice(byte[] b, int from, int to) {
        return Arrays.copyOfRange(b, from, to);
    }
}
