package org.jrdma.rocev2.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jrdma.rocev2.wire.PacketBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {
    /** One frame as captured: time, IP fields, and the bytes from the IP header on. */
    private record Orig(long ts, int ipVersion, int src4, int dst4, long s6hi, long s6lo, long d6hi, long d6lo,
                        int ipId, int flags, int tos, int ttl, int flowLabel, int sport, int dport, byte[] fromIp, byte[] payload) {
    }

    private static List<Orig> roceFrames(Path f) throws IOException {
        List<Orig> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(f)) {
            while (r.next()) {
                if (r.isUdp() && r.dstPort() == 4791) {
                    byte[] d = r.data();
                    out.add(new Orig(r.timestampNanos(), r.ipVersion(), r.ipv4Src(), r.ipv4Dst(), r.ipv6SrcHi(),
                        r.ipv6SrcLo(), r.ipv6DstHi(), r.ipv6DstLo(), r.ipId(), r.ipFlagsFragOff(), r.tos(), r.ttl(),
                        r.flowLabel(), r.srcPort(), r.dstPort(),
                        Arrays.copyOfRange(d, r.ipHeaderOffset(), r.udpPayloadOffset() + r.udpPayloadLength()),
                        Arrays.copyOfRange(d, r.udpPayloadOffset(), r.udpPayloadOffset() + r.udpPayloadLength())));
                }
            }
        }
        return out;
    }

    private static void write(PcapWriter w, Orig o, PacketBuffer b) throws IOException {
        b.seg.asByteBuffer().put(o.payload());
        if (o.ipVersion() == 4) {
            w.writeIpv4(o.ts(), o.src4(), o.dst4(), o.ipId(), o.flags(), o.tos(), o.ttl(), o.sport(), o.dport(), b, 0,
                o.payload().length);
        } else {
            w.writeIpv6(o.ts(), o.s6hi(), o.s6lo(), o.d6hi(), o.d6lo(), o.tos(), o.flowLabel(), o.ttl(), o.sport(),
                o.dport(), b, 0, o.payload().length);
        }
    }

    /** RFC 1071 one's-complement sum of big-endian 16-bit words (test's own implementation). */
    private static int onesComplementSum(byte[] a, int from, int to, long sum) {
        for (int i = from; i < to; i += 2) {
            int hi = a[i] & 0xff;
            int lo = i + 1 < to ? a[i + 1] & 0xff : 0;
            sum += (hi << 8) | lo;
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (int) sum;
    }

    @Test
    void rewritingTheCapturedRocePacketsReproducesTheKernelsIpv4AndUdpHeaders(@TempDir Path tmp) throws IOException {
        List<Orig> all = new ArrayList<>();
        for (String name : new String[] {"rxe-rc-write-bw.pcap", "rxe-rc-pingpong-ipv6.pcap", "host-mad-ping.pcap", "rxe-rc-imm.pcap"}) {
            all.addAll(roceFrames(Captures.file(name)));
        }
        Path out = tmp.resolve("out.pcap");
        PacketBuffer b = PacketBuffer.allocate(9000);
        try (PcapWriter w = PcapWriter.create(out)) {
            for (Orig o : all) {
                write(w, o, b);
            }
            assertEquals(all.size(), w.framesWritten());
        }
        List<Orig> back = roceFrames(out);
        assertEquals(all.size(), back.size());
        int v4 = 0;
        int v6 = 0;
        int udpChecksummed = 0;
        for (int i = 0; i < all.size(); i++) {
            Orig a = all.get(i);
            Orig c = back.get(i);
            assertEquals(a.ts(), c.ts());
            assertArrayEquals(a.payload(), c.payload());
            if (a.ipVersion() == 4) {
                // the kernel's IPv4 header (incl. its header checksum) and rxe's UDP header, byte for byte;
                // only host-mad-ping #7, sent through a kernel UDP socket, carries a UDP checksum, which
                // the writer leaves 0 like rxe
                byte[] x = a.fromIp().clone();
                if (x[26] != 0 || x[27] != 0) {
                    x[26] = 0;
                    x[27] = 0;
                    udpChecksummed++;
                }
                assertArrayEquals(x, c.fromIp(), "frame " + i);
                v4++;
            } else {
                byte[] x = a.fromIp().clone();
                byte[] y = c.fromIp();
                // IPv6: all equal but the UDP checksum, which rxe leaves 0 and the writer computes
                x[46] = y[46];
                x[47] = y[47];
                assertArrayEquals(x, y, "frame " + i);
                // pseudo-header (addresses, length, next header) + UDP header + payload sums to 0xffff
                int udpLen = y.length - 40;
                long pseudo = onesComplementSum(y, 8, 40, 0) + udpLen + 17;
                assertEquals(0xffff, onesComplementSum(y, 40, y.length, pseudo), "frame " + i);
                v6++;
            }
        }
        assertEquals(45 + 3 + 19, v4);
        assertEquals(20 + 3, v6);
        assertEquals(1, udpChecksummed, "tshark: only host-mad-ping #7 (sent through a UDP socket) has an IPv4 UDP checksum, 0x15d7");
    }

    @Test
    void theFileHeaderIsNanosecondLittleEndianEthernet(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("empty.pcap");
        try (PcapWriter w = PcapWriter.create(out)) {
            assertEquals(0, w.framesWritten());
        }
        byte[] h = Files.readAllBytes(out);
        assertArrayEquals(new byte[] {0x4d, 0x3c, (byte) 0xb2, (byte) 0xa1, 2, 0, 4, 0}, Arrays.copyOf(h, 8));
        assertEquals(24, h.length);
        assertEquals(1, h[20]);
    }

    @Test
    void writingAPacketAllocatesNothing() throws Exception {
        // java.management is not read by the module under test: reach ThreadMXBean reflectively
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        WritableByteChannel sink = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                src.position(src.limit());
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        PcapWriter w = new PcapWriter(sink);
        PacketBuffer b = PacketBuffer.allocate(2048);
        for (int i = 0; i < 20_000; i++) {
            w.writeIpv4(i, 0x0a4d000c, 0x0a4d000b, i, 0x4000, 0, 64, 49152, 4791, b, 0, 1056);
            w.writeIpv6(i, 0xfd77000000000000L, 0x12, 0xfd77000000000000L, 0x11, 0, 0, 64, 49152, 4791, b, 0, 1056);
        }
        long before = (long) allocatedBytes.invoke(mx);
        for (int i = 0; i < 10_000; i++) {
            w.writeIpv4(i, 0x0a4d000c, 0x0a4d000b, i, 0x4000, 0, 64, 49152, 4791, b, 0, 1056);
            w.writeIpv6(i, 0xfd77000000000000L, 0x12, 0xfd77000000000000L, 0x11, 0, 0, 64, 49152, 4791, b, 0, 1056);
        }
        long allocated = (long) allocatedBytes.invoke(mx) - before;
        assertTrue(allocated < 20_000 * 8, "20000 packets allocated " + allocated + " bytes");
    }
}
