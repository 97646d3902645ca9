package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.util.HexFormat;
import org.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;

/**
 * The out-of-band TCP exchange against the real bytes of perftest 4.5 on port 18515, as tshark
 * prints them ({@code tshark -r rxe-rc-write-bw.pcap -Y 'tcp.port==18515 && tcp.len>0' -T fields
 * -e ip.src -e tcp.payload}); g2 10.77.0.12 is the client, g1 10.77.0.11 the server. The segments
 * are literals here: one side is replayed, the other side's writes must equal the capture.
 */
class CaptureExchangeTest {
    private static final HexFormat HEX = HexFormat.of();

    // rxe-rc-write-bw.pcap (ib_write_bw -d rxe0 -x 1 -F -n 5 -s 8192), in stream order
    static final String VERSION = "362e3036000000000000000000000000";
    static final String PAGE = "00001000";
    static final String LINE = "00000040";
    static final String MTU = "3300";
    static final String BW_CLIENT_KEYS = "303030303a303030313a3030303031323a3562616133393a30303030303330663a3030303035"
            + "36303134313938303030303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a3464"
            + "3a30303a30633a30303030303030303a00";
    static final String BW_SERVER_KEYS = "303030303a303030313a3030303031323a6436343363313a30303030303339383a3030303035"
            + "35363134646130663030303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a3464"
            + "3a30303a30623a30303030303030303a00";
    static final String[] BW_CLIENT_REPORT = {"0000000000002000", "0000000000000005", "400583c5ef3f52fd",
        "400583c5e515cc0d", "3f368f519062175a"};
    /** The server's report fields: uninitialised memory in perftest (its own report is never computed). */
    static final String[] BW_SERVER_REPORT = {"00007ffe976ceed4", "00007f5bf2faa11a", "0000000000000006",
        "00007ffe976ed300", "00007ffe976ceed4"};
    static final String DONE = "646f6e6500";

    // rxe-rc-read-bw.pcap: the client's keys (OUT 0x80)
    static final String READ_CLIENT_KEYS = "303030303a303038303a3030303031333a3235336639393a30303030303464653a30303030"
            + "3535663466356333623030303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a"
            + "34643a30303a30633a30303030303030303a00";

    // rxe-rc-write-lat.pcap (ib_write_lat -n 5 -s 64): client and server keys
    static final String LAT_CLIENT_KEYS = "303030303a303030313a3030303031363a3964646661653a30303030303762663a30303030"
            + "3535376665356561313030303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a"
            + "34643a30303a30633a30303030303030303a00";
    static final String LAT_SERVER_KEYS = "303030303a303030313a3030303031363a3539613237363a30303030303732623a30303030"
            + "3535396136343631633030303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a"
            + "34643a30303a30623a30303030303030303a00";

    static byte[] hex(String... parts) {
        return HEX.parseHex(String.join("", parts));
    }

    static Gid gid(String ip) throws Exception {
        return Gid.of(InetAddress.getByName(ip));
    }

    @Test
    void handShakeStringsDecodeToTheLoggedAddresses() throws Exception {
        Dest c = Dest.decode(hex(BW_CLIENT_KEYS));
        assertEquals(new Dest(0, 1, 0x12, 0x5baa39, 0x30f, 0x560141980000L, gid("10.77.0.12"), 0), c);
        Dest s = Dest.decode(hex(BW_SERVER_KEYS));
        assertEquals(new Dest(0, 1, 0x12, 0xd643c1, 0x398, 0x55614da0f000L, gid("10.77.0.11"), 0), s);
        assertEquals(0x80, Dest.decode(hex(READ_CLIENT_KEYS)).outReads());
    }

    @Test
    void handShakeStringsEncodeToTheCapturedBytes() throws Exception {
        assertEquals(108, hex(BW_CLIENT_KEYS).length);
        assertArrayEquals(hex(BW_CLIENT_KEYS),
                new Dest(0, 1, 0x12, 0x5baa39, 0x30f, 0x560141980000L, gid("10.77.0.12"), 0).encode());
        assertArrayEquals(hex(READ_CLIENT_KEYS),
                new Dest(0, 0x80, 0x13, 0x253f99, 0x4de, 0x55f4f5c3b000L, gid("10.77.0.12"), 0).encode());
        assertArrayEquals(hex(LAT_SERVER_KEYS),
                new Dest(0, 1, 0x16, 0x59a276, 0x72b, 0x559a6461c000L, gid("10.77.0.11"), 0).encode());
    }

    /** The client of ib_write_bw, replaying the server's half: every byte we write equals the capture. */
    @Test
    void writeBwClientWritesExactlyTheCapturedStream() throws Exception {
        byte[] serverHalf = hex(VERSION, PAGE, LINE, MTU, BW_SERVER_KEYS, BW_SERVER_KEYS, BW_SERVER_KEYS,
                BW_SERVER_KEYS, String.join("", BW_SERVER_REPORT), BW_SERVER_KEYS, DONE);
        ByteArrayOutputStream ours = new ByteArrayOutputStream();
        OobChannel ch = new OobChannel(new ByteArrayInputStream(serverHalf), ours, true, null, "10.77.0.11:18515");
        Dest me = Dest.decode(hex(BW_CLIENT_KEYS));

        assertEquals("6.06", ch.exchangeVersions(OobChannel.VERSION));
        int[] sys = ch.exchangeSysData(4096, 64);
        assertEquals(4096, sys[0]);
        assertEquals(64, sys[1]);
        assertEquals(3, ch.exchangeMtu(3));
        Dest peer = ch.handShake(me);
        assertEquals(0xd643c1, peer.psn());
        ch.handShake(me);
        ch.handShake(me);
        ch.handShake(me);
        BwReport mine = new BwReport(8192, 5, Double.longBitsToDouble(0x400583c5ef3f52fdL),
                Double.longBitsToDouble(0x400583c5e515cc0dL), Double.longBitsToDouble(0x3f368f519062175aL));
        ch.exchangeBwReport(mine);
        ch.closeConnection(me);

        byte[] expected = hex(VERSION, PAGE, LINE, MTU, BW_CLIENT_KEYS, BW_CLIENT_KEYS, BW_CLIENT_KEYS,
                BW_CLIENT_KEYS, String.join("", BW_CLIENT_REPORT), BW_CLIENT_KEYS, DONE);
        assertEquals(HEX.formatHex(expected), HEX.formatHex(ours.toByteArray()));
    }

    /** The server of ib_write_bw, replaying the client's half: it reads the client's report. */
    @Test
    void writeBwServerReadsTheClientsReport() throws Exception {
        byte[] clientHalf = hex(VERSION, PAGE, LINE, MTU, BW_CLIENT_KEYS, BW_CLIENT_KEYS, BW_CLIENT_KEYS,
                BW_CLIENT_KEYS, String.join("", BW_CLIENT_REPORT), BW_CLIENT_KEYS, DONE);
        ByteArrayOutputStream ours = new ByteArrayOutputStream();
        OobChannel ch = new OobChannel(new ByteArrayInputStream(clientHalf), ours, false, null, "10.77.0.12");
        Dest me = Dest.decode(hex(BW_SERVER_KEYS));
        ch.exchangeVersions(OobChannel.VERSION);
        ch.exchangeSysData(4096, 64);
        ch.exchangeMtu(3);
        for (int i = 0; i < 4; i++) {
            assertEquals(0x5baa39, ch.handShake(me).psn());
        }
        BwReport client = ch.exchangeBwReport(new BwReport(0, 0, 0, 0, 0));
        ch.closeConnection(me);
        assertEquals(8192, client.size());
        assertEquals(5, client.iters());
        // the row the real server printed from these bytes (logs/rxe-rc-write-bw.g1.txt)
        assertEquals(" 8192       5                2.69               2.69   \t\t   0.000344\n",
                Printer.bwRow(client, Params.Output.FULL, false));
        byte[] expectedPrefix = hex(VERSION, PAGE, LINE, MTU, BW_SERVER_KEYS, BW_SERVER_KEYS, BW_SERVER_KEYS,
                BW_SERVER_KEYS);
        byte[] all = ours.toByteArray();
        byte[] prefix = java.util.Arrays.copyOf(all, expectedPrefix.length);
        assertArrayEquals(expectedPrefix, prefix);
        // 5 report fields of 8 bytes (zeros from us, garbage from perftest), then keys and "done"
        assertEquals(expectedPrefix.length + 40 + 108 + 5, all.length);
        byte[] tail = java.util.Arrays.copyOfRange(all, expectedPrefix.length + 40, all.length);
        assertArrayEquals(hex(BW_SERVER_KEYS, DONE), tail);
    }

    /** ib_write_lat: versions, sys data, MTU and four hand-shakes, nothing after. */
    @Test
    void writeLatClientStream() throws Exception {
        byte[] serverHalf = hex(VERSION, PAGE, LINE, MTU, LAT_SERVER_KEYS, LAT_SERVER_KEYS, LAT_SERVER_KEYS,
                LAT_SERVER_KEYS);
        ByteArrayOutputStream ours = new ByteArrayOutputStream();
        OobChannel ch = new OobChannel(new ByteArrayInputStream(serverHalf), ours, true, null, "g1");
        Dest me = Dest.decode(hex(LAT_CLIENT_KEYS));
        ch.exchangeVersions(OobChannel.VERSION);
        ch.exchangeSysData(4096, 64);
        ch.exchangeMtu(3);
        for (int i = 0; i < 4; i++) {
            ch.handShake(me);
        }
        assertArrayEquals(hex(VERSION, PAGE, LINE, MTU, LAT_CLIENT_KEYS, LAT_CLIENT_KEYS, LAT_CLIENT_KEYS,
                LAT_CLIENT_KEYS), ours.toByteArray());
    }

    @Test
    void oldPeerIsRejected() {
        byte[] v = new byte[16];
        System.arraycopy("5.60".getBytes(), 0, v, 0, 4);
        OobChannel ch = new OobChannel(new ByteArrayInputStream(v), new ByteArrayOutputStream(), true, null, "peer:1");
        PerftestException e = assertThrows(PerftestException.class, () -> ch.exchangeVersions("6.06"));
        assertTrue(e.getMessage().contains("5.60") && e.getMessage().contains("5.70"), e.getMessage());
    }

    @Test
    void foreignProtocolIsRejected() {
        byte[] v = "HTTP/1.1 400 Bad".getBytes();
        OobChannel ch = new OobChannel(new ByteArrayInputStream(v), new ByteArrayOutputStream(), true, null, "peer:1");
        PerftestException e = assertThrows(PerftestException.class, () -> ch.exchangeVersions("6.06"));
        assertTrue(e.getMessage().contains("does not speak perftest's exchange format"), e.getMessage());
    }

    @Test
    void truncatedStreamNamesTheStep() {
        OobChannel ch = new OobChannel(new ByteArrayInputStream(hex(VERSION, "0000")), new ByteArrayOutputStream(),
                true, null, "10.0.0.9:18515");
        ch.exchangeVersions("6.06");
        PerftestException e = assertThrows(PerftestException.class, () -> ch.exchangeSysData(4096, 64));
        assertTrue(e.getMessage().contains("10.0.0.9:18515") && e.getMessage().contains("page size"), e.getMessage());
    }

    @Test
    void malformedHandShakeIsRejected() {
        byte[] junk = new byte[108];
        byte[] text = "not:a:perftest:key".getBytes();
        System.arraycopy(text, 0, junk, 0, text.length);
        PerftestException e = assertThrows(PerftestException.class, () -> Dest.decode(junk));
        assertTrue(e.getMessage().contains("malformed"), e.getMessage());
    }
}
