package org.jrdma.rocev2.pcap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.jrdma.rocev2.wire.PacketBuffer;

/** The reference captures of Linux rxe and siw ({@code testdata/captures}) and the RoCE v2 packets in them. */
public final class Captures {
    private static List<RoceFrame> all;

    private Captures() {
    }

    /** One RoCE v2 packet (UDP destination port 4791) of a capture, as captured. */
    public record RoceFrame(String file, long frame, int ipVersion, int src4, int dst4,
                            long src6hi, long src6lo, long dst6hi, long dst6lo,
                            int ipId, int flagsFragOff, int tos, int ttl, int srcPort, int dstPort, byte[] udpPayload) {
        /** "file#frame". */
        public String id() {
            return file + "#" + frame;
        }

        /** A new buffer holding the UDP payload at offset 0. */
        public PacketBuffer buffer() {
            PacketBuffer b = PacketBuffer.allocate(Math.max(1, udpPayload.length + 64));
            b.seg.asByteBuffer().put(udpPayload);
            b.length(udpPayload.length);
            return b;
        }
    }

    /**
     * The capture directory: {@code $jrdma.testdata/captures} (the parent pom sets
     * {@code jrdma.testdata} to the repository's {@code testdata}), else {@code ../testdata/captures}
     * from the module directory.
     */
    public static Path dir() {
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures").toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new IllegalStateException("reference captures not found: " + p
                + " (the repository's testdata/captures; system property jrdma.testdata)");
        }
        return p;
    }

    /** All *.pcap files, sorted by name. */
    public static List<Path> files() {
        try (Stream<Path> s = Files.list(dir())) {
            return s.filter(f -> f.getFileName().toString().endsWith(".pcap")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path file(String name) {
        return dir().resolve(name);
    }

    /** Every UDP datagram to port 4791 in every capture, in file and frame order. */
    public static synchronized List<RoceFrame> roceFrames() {
        if (all == null) {
            List<RoceFrame> out = new ArrayList<>();
            for (Path f : files()) {
                out.addAll(roceFrames(f));
            }
            all = List.copyOf(out);
        }
        return all;
    }

    public static List<RoceFrame> roceFrames(Path f) {
        List<RoceFrame> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(f)) {
            while (r.next()) {
                if (r.isUdp() && r.dstPort() == 4791) {
                    byte[] payload = Arrays.copyOfRange(r.data(), r.udpPayloadOffset(),
                        r.udpPayloadOffset() + r.udpPayloadLength());
                    out.add(new RoceFrame(f.getFileName().toString(), r.frameNumber(), r.ipVersion(),
                        r.ipv4Src(), r.ipv4Dst(), r.ipv6SrcHi(), r.ipv6SrcLo(), r.ipv6DstHi(), r.ipv6DstLo(),
                        r.ipId(), r.ipFlagsFragOff(), r.tos(), r.ttl(), r.srcPort(), r.dstPort(), payload));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The one frame {@code frame} of capture {@code file} (must be a RoCE v2 packet). */
    public static RoceFrame frame(String file, long frame) {
        for (RoceFrame r : roceFrames()) {
            if (r.file().equals(file) && r.frame() == frame) {
                return r;
            }
        }
        throw new IllegalArgumentException("no RoCE v2 frame " + file + "#" + frame);
    }
}
