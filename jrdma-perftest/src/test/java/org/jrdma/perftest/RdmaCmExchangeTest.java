package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import org.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;

/**
 * perftest's rdma_cm exchange ({@code -R}) against the SENDs of {@code rxe-cm-write-bw.pcap}
 * ({@code ib_write_bw -R -d rxe0 -F -n 5 -s 8192}, g2 10.77.0.12 the client, g1 10.77.0.11 the
 * server; the exchange's QP is 0x1e): {@code tshark -r rxe-cm-write-bw.pcap -Y
 * 'infiniband.bth.destqp==0x1e && infiniband.bth.opcode==4' -T fields -e ip.src -e data.data}, with
 * the 2-byte MTU message cut to its length (BTH pad count 2). The server's messages are replayed to
 * jrdma's client, whose messages must equal the Linux client's, one SEND each, in the same order.
 */
class RdmaCmExchangeTest {
    private static final HexFormat HEX = HexFormat.of();

    static final String VERSION = "362e3036000000000000000000000000";
    static final String PAGE = "00001000";
    static final String LINE = "00000040";
    static final String MTU = "3300";
    static final String ZERO = "00".repeat(56);
    /** Frames 31 and 33: the client's and the server's struct pingpong_dest of QP 0x1f. */
    static final String CLIENT_DEST = "00000000000000010000001f001cb5b4000013f80000000000005567784a1000"
            + "00000000000000000000ffff0a4d000c0000000000000001";
    static final String SERVER_DEST = "00000000000000010000001f0064e4b1000012a500000000000056371daef000"
            + "00000000000000000000ffff0a4d000b0000000000000001";
    /** Frames 92 .. 108: the client's report (8192 B, 5 iterations, peak, average, message rate). */
    static final String[] CLIENT_REPORT = {"0000000000002000", "0000000000000005", "401d6eddb5f4f07b",
        "40189ec63e9ba1a8", "3f49d0f01e427e39"};
    /** Frames 94 .. 110: the server's (uninitialised memory: its own report is never computed). */
    static final String[] SERVER_REPORT = {"00007ffc1abee1d4", "00007f80a5de911a", "0000000000000006",
        "00007ffc1abf6300", "00007ffc1abee1d4"};

    /** One message per call, as SENDs: the reads are replayed, the writes recorded. */
    static final class ScriptedLink implements OobChannel.Link {
        final Deque<byte[]> toRead = new ArrayDeque<>();
        final List<String> written = new ArrayList<>();

        ScriptedLink(String... reads) {
            for (String r : reads) {
                toRead.add(HEX.parseHex(r));
            }
        }

        @Override
        public void write(byte[] b, String what) {
            written.add(HEX.formatHex(b));
        }

        @Override
        public void read(byte[] b, String what) {
            byte[] m = toRead.removeFirst();
            assertEquals(b.length, m.length, what + ": the message's length");
            System.arraycopy(m, 0, b, 0, b.length);
        }

        @Override
        public boolean rdmaCm() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    static Gid gid(String ip) throws Exception {
        return Gid.of(InetAddress.getByName(ip));
    }

    @Test
    void theStructDecodesToTheLoggedAddressAndEncodesToTheCapturedBytes() throws Exception {
        Dest c = Dest.decodeStruct(HEX.parseHex(CLIENT_DEST));
        // the client's log: "local address: LID 0000 QPN 0x001f PSN 0x1cb5b4", GID ::ffff:10.77.0.12
        assertEquals(new Dest(0, 1, 0x1f, 0x1cb5b4, 0x13f8, 0x5567784a1000L, gid("10.77.0.12"), 0), c);
        assertArrayEquals(HEX.parseHex(CLIENT_DEST), c.encodeStruct(1));
        assertEquals(Dest.STRUCT_SIZE, HEX.parseHex(CLIENT_DEST).length);
        assertArrayEquals(HEX.parseHex(ZERO), Dest.zero().encodeStruct(0));
    }

    @Test
    void aShortStructIsRefused() {
        assertThrows(PerftestException.class, () -> Dest.decodeStruct(new byte[40]));
    }

    @Test
    void jrdmasClientWritesWhatLinuxPerftestsClientWrote() throws Exception {
        List<String> serverSent = new ArrayList<>(List.of(VERSION, PAGE, LINE, MTU, ZERO, ZERO,
                SERVER_DEST, SERVER_DEST, SERVER_DEST, SERVER_DEST));
        serverSent.addAll(List.of(SERVER_REPORT));
        serverSent.add(SERVER_DEST);
        ScriptedLink link = new ScriptedLink(serverSent.toArray(String[]::new));
        OobChannel comm = new OobChannel(link, true, "g1");
        Dest mine = Dest.decodeStruct(HEX.parseHex(CLIENT_DEST));

        // write_bw.c's order with -R (Perftest.run and rdmaBw)
        assertEquals("6.06", comm.exchangeVersions(OobChannel.VERSION));
        int[] sys = comm.exchangeSysData(4096, 64);
        assertEquals(List.of(4096, 64), List.of(sys[0], sys[1]));
        assertEquals(3, comm.exchangeMtu(3));
        comm.handShake(Dest.zero());            // before the test's connections
        comm.handShake(Dest.zero());            // after them
        comm.destGidIndex(1);
        Dest rem = comm.handShake(mine);
        assertEquals(new Dest(0, 1, 0x1f, 0x64e4b1, 0x12a5, 0x56371daef000L, gid("10.77.0.11"), 0), rem);
        comm.handShake(mine);                   // prints the remote address
        comm.handShake(mine);                   // after RTR
        comm.handShake(mine);                   // before the reports
        BwReport r = new BwReport(8192, 5, Double.longBitsToDouble(Long.parseUnsignedLong(CLIENT_REPORT[2], 16)),
                Double.longBitsToDouble(Long.parseUnsignedLong(CLIENT_REPORT[3], 16)),
                Double.longBitsToDouble(Long.parseUnsignedLong(CLIENT_REPORT[4], 16)));
        comm.exchangeBwReport(r);
        comm.closeConnection(mine);             // the last hand-shake, no "done" over rdma_cm

        List<String> expected = new ArrayList<>(List.of(VERSION, PAGE, LINE, MTU, ZERO, ZERO,
                CLIENT_DEST, CLIENT_DEST, CLIENT_DEST, CLIENT_DEST));
        expected.addAll(List.of(CLIENT_REPORT));
        expected.add(CLIENT_DEST);
        assertEquals(expected, link.written);
        assertEquals(0, link.toRead.size());
    }
}
