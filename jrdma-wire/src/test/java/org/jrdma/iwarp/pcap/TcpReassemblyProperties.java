package org.jrdma.iwarp.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.jrdma.rocev2.pcap.PcapCheck;
import org.jrdma.rocev2.pcap.PcapReader;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The two TCP streams of {@code siw-crc-rping.pcap} (Linux siw, MPA CRC on), rewritten by
 * {@link TcpPcapWriter} as one connection cut into random segments, with random retransmissions (whole or
 * overlapping) and segments swapped out of order, over IPv4 or IPv6: {@link TcpReassembler} must give back
 * both streams byte for byte and {@code pcap-check} must find the same 2 MPA frames and 21 FPDUs with good
 * CRCs that it finds in the original capture.
 */
class TcpReassemblyProperties {
    private static byte[][] streams; // [0] initiator -> responder, [1] back

    private static synchronized byte[][] siwStreams() throws IOException {
        if (streams == null) {
            ByteArrayOutputStream a = new ByteArrayOutputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            TcpReassembler r = new TcpReassembler((flow, data, off, len, frame) -> {
                if (flow.dstPort() == 7174) {
                    a.write(data, off, len);
                } else if (flow.srcPort() == 7174) {
                    b.write(data, off, len);
                }
            });
            Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures", "siw-crc-rping.pcap");
            try (PcapReader rd = PcapReader.open(p)) {
                while (rd.next()) {
                    r.accept(rd);
                }
            }
            streams = new byte[][] {a.toByteArray(), b.toByteArray()};
        }
        return streams;
    }

    private record Seg(boolean initiator, int seq, int from, int len) {
    }

    @Property(tries = 30)
    void reorderedAndRetransmittedSegmentsReassemble(@ForAll long seed, @ForAll boolean ipv6) throws IOException {
        byte[][] s = siwStreams();
        assertEquals("MPA ID Req Frame", new String(s[0], 0, 16, StandardCharsets.US_ASCII));
        assertEquals(24, 20 + (s[0][19] & 0xff), "the Request is 24 bytes (private data 4)");
        Random rnd = new Random(seed);
        int isnA = rnd.nextInt();
        int isnB = rnd.nextInt();
        // cut each direction: the MPA frame (24 bytes) alone first, then random pieces of 1..300 bytes
        List<List<Seg>> cut = new ArrayList<>();
        for (int d = 0; d < 2; d++) {
            List<Seg> l = new ArrayList<>();
            int isn = (d == 0 ? isnA : isnB) + 1;
            l.add(new Seg(d == 0, isn, 0, 24));
            for (int at = 24; at < s[d].length; ) {
                int n = Math.min(s[d].length - at, 1 + rnd.nextInt(300));
                l.add(new Seg(d == 0, isn + at, at, n));
                at += n;
            }
            cut.add(l);
        }
        // the order on the wire: Request, Reply, then the rest interleaved, with swaps and retransmissions
        List<Seg> wire = new ArrayList<>();
        wire.add(cut.get(0).get(0));
        wire.add(cut.get(1).get(0));
        int i0 = 1;
        int i1 = 1;
        while (i0 < cut.get(0).size() || i1 < cut.get(1).size()) {
            boolean pickA = i1 >= cut.get(1).size() || (i0 < cut.get(0).size() && rnd.nextBoolean());
            Seg g = pickA ? cut.get(0).get(i0++) : cut.get(1).get(i1++);
            wire.add(g);
            if (rnd.nextInt(6) == 0) {
                wire.add(g); // retransmission of the whole segment
            }
            if (rnd.nextInt(8) == 0 && g.len() > 2) { // an overlapping retransmission of its second half
                int h = g.len() / 2;
                wire.add(new Seg(g.initiator(), g.seq() + h, g.from() + h, g.len() - h));
            }
        }
        for (int k = 3; k + 1 < wire.size(); k++) {
            if (rnd.nextInt(5) == 0) {
                Collections.swap(wire, k, k + 1); // out of order
                k++;
            }
        }
        Path f = Files.createTempFile("jrdma-tcp", ".pcap");
        try {
            try (TcpPcapWriter w = new TcpPcapWriter(Channels.newChannel(Files.newOutputStream(f)))) {
                TcpPcapWriter.Connection c = ipv6
                    ? w.ipv6(0xfd77000100000000L, 0x12L, 49655, 0xfd77000100000000L, 0x11L, 7174, isnA, isnB)
                    : w.ipv4(0x0a4d010c, 49655, 0x0a4d010b, 7174, isnA, isnB);
                c.handshake(1_000_000_000L);
                long t = 1_000_100_000L;
                for (Seg g : wire) {
                    byte[] src = s[g.initiator() ? 0 : 1];
                    c.segment(t++, g.initiator(), g.seq(), 0, TcpPcapWriter.PSH | TcpPcapWriter.ACK,
                        ByteBuffer.wrap(src), g.from(), g.len());
                }
                c.close(t, true);
            }
            ByteArrayOutputStream a = new ByteArrayOutputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            TcpReassembler r = new TcpReassembler((flow, data, off, len, frame) ->
                (flow.dstPort() == 7174 ? a : b).write(data, off, len));
            try (PcapReader rd = PcapReader.open(f)) {
                while (rd.next()) {
                    assertTrue(rd.isTcp());
                    assertEquals(ipv6 ? 6 : 4, rd.ipVersion());
                    r.accept(rd);
                }
            }
            assertTrue(java.util.Arrays.equals(s[0], a.toByteArray()), "initiator's stream");
            assertTrue(java.util.Arrays.equals(s[1], b.toByteArray()), "responder's stream");

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int status = PcapCheck.run(new String[] {f.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, status, text);
            assertTrue(text.contains("; 2 iWARP streams (TCP): 2 MPA frames, 21 FPDUs, 0 MPA CRC failures, 0 malformed\n"), text);
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
