package org.jrdma.rocev2.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jrdma.rocev2.pcap.Captures.RoceFrame;
import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Expected values are from tshark 4.0.17 on the same files ({@code -T fields -e frame.time_epoch ...}). */
class PcapReaderTest {
    private static Path resource(String name) {
        try {
            return Path.of(PcapReaderTest.class.getResource("/pcap/" + name).toURI());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int countFrames(PcapReader r) throws IOException {
        int n = 0;
        while (r.next()) {
            n++;
        }
        return n;
    }

    private static List<String> describe(PcapReader r) throws IOException {
        List<String> out = new ArrayList<>();
        while (r.next()) {
            out.add(r.frameNumber() + " " + r.timestampNanos() + " " + r.ipVersion() + " " + r.srcAddress() + " "
                + r.dstAddress() + " " + r.isUdp() + " " + r.srcPort() + " " + r.dstPort() + " " + r.ipId() + " "
                + r.udpPayloadLength() + " " + Arrays.hashCode(Arrays.copyOfRange(r.data(), r.udpPayloadOffset(),
                r.udpPayloadOffset() + r.udpPayloadLength())));
        }
        return out;
    }

    @Test
    void classicPcapFramesTimesAndAddressesAsTsharkShowsThem() throws IOException {
        try (PcapReader r = PcapReader.open(Captures.file("host-mad-ping.pcap"))) {
            assertEquals("pcap", r.format());
            assertTrue(r.next());
            assertEquals(1, r.frameNumber());
            assertEquals(1795950473_464902000L, r.timestampNanos());
            assertEquals(322, r.capturedLength());
            assertEquals(322, r.originalLength());
            assertEquals(PcapReader.LINKTYPE_ETHERNET, r.linkType());
            assertEquals(4, r.ipVersion());
            assertEquals("10.77.0.1", r.srcAddress());
            assertEquals("10.77.0.11", r.dstAddress());
            assertEquals(0x1234, r.ipId());
            assertEquals(0x4000, r.ipFlagsFragOff());
            assertTrue(r.isUdp());
            assertEquals(4791, r.srcPort());
            assertEquals(4791, r.dstPort());
            assertEquals(288, r.udpLength());
            assertEquals(280, r.udpPayloadLength());
            assertEquals(14 + 20 + 8, r.udpPayloadOffset());
            assertFalse(r.udpTruncated());
            for (int i = 2; i <= 5; i++) {
                assertTrue(r.next());
            }
            assertEquals(5, r.frameNumber());
            assertEquals(6, r.ipVersion());
            assertEquals("fd77::1", r.srcAddress());
            assertEquals("fd77::11", r.dstAddress());
            assertEquals(0x05bb1f, r.flowLabel());
            assertEquals(64, r.ttl());
            assertEquals(14 + 40 + 8, r.udpPayloadOffset());
            for (int i = 6; i <= 9; i++) {
                assertTrue(r.next());
            }
            assertEquals(0, r.ipVersion(), "frame 9 is ARP");
            assertFalse(r.isUdp());
            assertEquals(14, 9 + countFrames(r));
        }
        try (PcapReader r = PcapReader.open(Captures.file("rxe-rc-write-bw.pcap"))) {
            assertEquals(100, countFrames(r));
        }
        try (PcapReader r = PcapReader.open(Captures.file("siw-rping.pcap"))) {
            assertEquals(37, countFrames(r));
        }
    }

    @Test
    void nanosecondPcapAndPcapngWrittenByEditcapReadTheSameAsTheOriginal() throws IOException {
        List<String> original;
        try (PcapReader r = PcapReader.open(Captures.file("host-mad-ping.pcap"))) {
            original = describe(r);
        }
        assertEquals(14, original.size());
        try (PcapReader r = PcapReader.open(resource("host-mad-ping.nsec.pcap"))) {
            assertEquals("pcap (ns)", r.format());
            assertEquals(original, describe(r));
        }
        try (PcapReader r = PcapReader.open(resource("host-mad-ping.pcapng"))) {
            assertEquals("pcapng", r.format());
            assertEquals(original, describe(r));
        }
        try (PcapReader a = PcapReader.open(Captures.file("rxe-rc-pingpong-ipv6.pcap"));
             PcapReader b = PcapReader.open(resource("rxe-rc-pingpong-ipv6.pcapng"))) {
            assertEquals(describe(a), describe(b));
        }
    }

    /** Classic pcap records of a little-endian µs file: [header 24][records...]. */
    private static List<byte[][]> records(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0xa1b2c3d4, b.getInt(0));
        List<byte[][]> out = new ArrayList<>();
        int p = 24;
        while (p < file.length) {
            int incl = b.getInt(p + 8);
            out.add(new byte[][] {Arrays.copyOfRange(file, p, p + 16), Arrays.copyOfRange(file, p + 16, p + 16 + incl)});
            p += 16 + incl;
        }
        return out;
    }

    private interface FrameMap {
        byte[] map(byte[] ethernetFrame);
    }

    /** Rewrites a LE µs classic file: byte order, link type and frame bytes. */
    private static byte[] rewrite(byte[] file, ByteOrder order, int linkType, FrameMap map) {
        return rewrite(file, order, linkType, map, false);
    }

    /** ... with {@code snap}: the mapped frame is a cut of the original, whose wire length stays. */
    private static byte[] rewrite(byte[] file, ByteOrder order, int linkType, FrameMap map, boolean snap) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(24).order(order);
        h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144).putInt(linkType);
        out.writeBytes(h.array());
        for (byte[][] rec : records(file)) {
            ByteBuffer in = ByteBuffer.wrap(rec[0]).order(ByteOrder.LITTLE_ENDIAN);
            byte[] frame = map.map(rec[1]);
            ByteBuffer r = ByteBuffer.allocate(16).order(order);
            r.putInt(in.getInt(0)).putInt(in.getInt(4)).putInt(frame.length).putInt(snap ? in.getInt(12) : in.getInt(12) - rec[1].length + frame.length);
            out.writeBytes(r.array());
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    @Test
    void bigEndianClassicPcapAndLinuxCookedLinkTypes() throws IOException {
        byte[] file = Files.readAllBytes(Captures.file("host-mad-ping.pcap"));
        List<String> original = describe(new PcapReader(new ByteArrayInputStream(file)));

        byte[] be = rewrite(file, ByteOrder.BIG_ENDIAN, 1, f -> f);
        assertEquals(original, describe(new PcapReader(new ByteArrayInputStream(be))));

        // SLL (113): packet type 2, ARPHRD_ETHER 1, address length 6, address (8), protocol = EtherType
        byte[] sll = rewrite(file, ByteOrder.LITTLE_ENDIAN, 113, f -> {
            ByteBuffer o = ByteBuffer.allocate(16 + f.length - 14);
            o.putShort((short) 0).putShort((short) 1).putShort((short) 6).put(f, 6, 6).putShort((short) 0);
            o.put(f, 12, 2).put(f, 14, f.length - 14);
            return o.array();
        });
        // SLL2 (276): protocol, reserved, ifindex, ARPHRD, packet type, address length, address (8)
        byte[] sll2 = rewrite(file, ByteOrder.BIG_ENDIAN, 276, f -> {
            ByteBuffer o = ByteBuffer.allocate(20 + f.length - 14);
            o.put(f, 12, 2).putShort((short) 0).putInt(3).putShort((short) 1).put((byte) 0).put((byte) 6);
            o.put(f, 6, 6).putShort((short) 0).put(f, 14, f.length - 14);
            return o.array();
        });
        for (byte[] cooked : new byte[][] {sll, sll2}) {
            PcapReader r = new PcapReader(new ByteArrayInputStream(cooked));
            List<String> got = describe(r);
            assertEquals(original, got);
        }
        PcapReader r = new PcapReader(new ByteArrayInputStream(sll2));
        assertTrue(r.next());
        assertEquals(PcapReader.LINKTYPE_LINUX_SLL2, r.linkType());
        assertEquals(20, r.networkOffset());
    }

    @Test
    void vlanTaggedEthernetIsDecoded() throws IOException {
        byte[] file = Files.readAllBytes(Captures.file("rxe-rc-pingpong.pcap"));
        List<String> original = describe(new PcapReader(new ByteArrayInputStream(file)));
        byte[] tagged = rewrite(file, ByteOrder.LITTLE_ENDIAN, 1, f -> {
            ByteBuffer o = ByteBuffer.allocate(f.length + 4);
            o.put(f, 0, 12).putShort((short) 0x8100).putShort((short) 7).put(f, 12, f.length - 12);
            return o.array();
        });
        assertEquals(original, describe(new PcapReader(new ByteArrayInputStream(tagged))));
    }

    @Test
    void notACaptureIsAOneLineFormatError() {
        PcapFormatException e = assertThrows(PcapFormatException.class,
            () -> new PcapReader(new ByteArrayInputStream("hello, world\n".getBytes())));
        assertFalse(e.getMessage().contains("\n"));
        assertTrue(e.getMessage().startsWith("not a pcap or pcapng capture"), e.getMessage());
        assertThrows(PcapFormatException.class, () -> new PcapReader(new ByteArrayInputStream(new byte[0])));
        assertThrows(PcapFormatException.class, () -> new PcapReader(new ByteArrayInputStream(new byte[] {(byte) 0xd4, (byte) 0xc3, (byte) 0xb2, (byte) 0xa1, 2})));
    }

    @Test
    void aCaptureCutInARecordReadsUpToItThenFails() throws IOException {
        byte[] file = Files.readAllBytes(Captures.file("host-mad-ping.pcap"));
        // frame 1 is 322 bytes: header 24 + record header 16 + 322 + (frame 2) 16 + 100 bytes
        byte[] cut = Arrays.copyOf(file, 24 + 16 + 322 + 16 + 100);
        PcapReader r = new PcapReader(new ByteArrayInputStream(cut));
        assertTrue(r.next());
        PcapFormatException e = assertThrows(PcapFormatException.class, r::next);
        assertTrue(e.getMessage().contains("cut short"), e.getMessage());
    }

    @Test
    void truncatedSnapLengthIsReportedNotThrown() throws IOException {
        byte[] file = Files.readAllBytes(Captures.file("host-mad-ping.pcap"));
        byte[] snapped = rewrite(file, ByteOrder.LITTLE_ENDIAN, 1, f -> Arrays.copyOf(f, Math.min(f.length, 100)), true);
        PcapReader r = new PcapReader(new ByteArrayInputStream(snapped));
        assertTrue(r.next());
        assertEquals(100, r.capturedLength());
        assertEquals(322, r.originalLength());
        assertTrue(r.isUdp());
        assertTrue(r.udpTruncated());
        assertEquals(100 - 42, r.udpPayloadLength());
    }

    @Test
    void ipv6TextFollowsRfc5952() {
        assertEquals("fd77::11", PcapReader.ipv6String(0xfd77000000000000L, 0x11L));
        assertEquals("::", PcapReader.ipv6String(0, 0));
        assertEquals("::1", PcapReader.ipv6String(0, 1));
        assertEquals("::ffff:10.77.0.11", PcapReader.ipv6String(0, 0x0000ffff0a4d000bL));
        assertEquals("2001:db8::1:0:0:1", PcapReader.ipv6String(0x20010db800000000L, 0x0001000000000001L));
        assertEquals("fe80::1:2:3:4", PcapReader.ipv6String(0xfe80000000000000L, 0x0001000200030004L));
    }

    @Property(tries = 300)
    void randomBytesNeverThrowAnythingButFormatErrors(@ForAll @Size(max = 300) byte[] tail,
                                                     @ForAll @IntRange(min = 0, max = 3) int magic) {
        int[] magics = {0xa1b2c3d4, 0xd4c3b2a1, 0x0a0d0d0a, 0xa1b23c4d};
        ByteBuffer b = ByteBuffer.allocate(4 + tail.length);
        b.putInt(magics[magic]).put(tail);
        readAll(new ByteArrayInputStream(b.array()));
    }

    private static final byte[] PINGPONG = readQuietly(Captures.file("rxe-rc-pingpong.pcap"));
    private static final byte[] PCAPNG = readQuietly(resource("host-mad-ping.pcapng"));

    private static byte[] readQuietly(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Property(tries = 300)
    void truncatedOrCorruptedCapturesNeverThrowAnythingButFormatErrors(@ForAll @IntRange(min = 0, max = 1) int which,
                                                                       @ForAll @IntRange(min = 0, max = 100_000) int cutAt,
                                                                       @ForAll @IntRange(min = 0, max = 100_000) int flipAt,
                                                                       @ForAll byte flip) {
        byte[] src = which == 0 ? PINGPONG : PCAPNG;
        byte[] b = Arrays.copyOf(src, Math.min(src.length, cutAt % (src.length + 1)));
        if (b.length > 0) {
            b[flipAt % b.length] ^= flip;
        }
        readAll(new ByteArrayInputStream(b));
    }

    private static void readAll(InputStream in) {
        try (PcapReader r = new PcapReader(in)) {
            while (r.next()) {
                r.srcAddress();
                r.dstAddress();
                assertTrue(r.udpPayloadOffset() + r.udpPayloadLength() <= r.capturedLength() || !r.isUdp());
            }
        } catch (PcapFormatException expected) {
            assertFalse(expected.getMessage().contains("\n"));
        } catch (IOException e) {
            throw new AssertionError("unexpected " + e, e);
        }
    }

    @Test
    void everyCaptureReads() throws IOException {
        int roce = 0;
        for (Path f : Captures.files()) {
            try (PcapReader r = PcapReader.open(f)) {
                while (r.next()) {
                    if (r.isUdp() && r.dstPort() == 4791) {
                        roce++;
                    }
                }
            }
        }
        assertEquals(426, roce);
        List<RoceFrame> frames = Captures.roceFrames();
        assertEquals(426, frames.size());
        assertArrayEquals(new int[] {4791, 4791}, new int[] {frames.get(0).dstPort(), frames.get(425).dstPort()});
    }
}
