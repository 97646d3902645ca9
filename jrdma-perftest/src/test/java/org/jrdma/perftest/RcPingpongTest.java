package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code jrdma rc_pingpong} against the real {@code ibv_rc_pingpong} of rdma-core 44 on Linux rxe: the
 * TCP exchange bytes of {@code captures/rxe-rc-pingpong.pcap} and {@code rxe-rc-pingpong-ipv6.pcap}
 * (port 18515, as {@code tshark -Y 'tcp.port==18515 && tcp.len>0' -T fields -e ip.src -e tcp.payload}
 * prints them; g2 10.77.0.12 is the client) and the output lines of {@code logs/rxe-rc-pingpong.g1/g2.txt}.
 */
class RcPingpongTest {
    // rxe-rc-pingpong.pcap, in stream order: client -> server, server -> client, client -> server
    static final String V4_CLIENT = "303030303a3030303031373a3537303663333a3030303030303030303030303030303030303030"
            + "66666666306134643030306300";
    static final String V4_SERVER = "303030303a3030303031373a6630383561363a3030303030303030303030303030303030303030"
            + "66666666306134643030306200";
    static final String DONE = "646f6e6500";
    // rxe-rc-pingpong-ipv6.pcap (-g 2, GIDs fd77::12 and fd77::11)
    static final String V6_CLIENT = "303030303a3030303031383a6239383432363a6664373730303030303030303030303030303030"
            + "30303030303030303030313200";
    static final String V6_SERVER = "303030303a3030303031383a3239316236383a6664373730303030303030303030303030303030"
            + "30303030303030303030313100";

    static byte[] hex(String... s) {
        return HexFormat.of().parseHex(String.join("", s));
    }

    static Gid gid(String ip) throws Exception {
        return Gid.of(InetAddress.getByName(ip));
    }

    @Test
    void messagesAreFiftyTwoBytes() {
        assertEquals(PingpongDest.MSG_SIZE, hex(V4_CLIENT).length);
        assertEquals(PingpongDest.MSG_SIZE, hex(V6_SERVER).length);
    }

    @Test
    void encodeGivesTheCapturedBytes() throws Exception {
        assertArrayEquals(hex(V4_CLIENT), new PingpongDest(0, 0x17, 0x5706c3, gid("::ffff:10.77.0.12")).encode());
        assertArrayEquals(hex(V4_SERVER), new PingpongDest(0, 0x17, 0xf085a6, gid("::ffff:10.77.0.11")).encode());
        assertArrayEquals(hex(V6_CLIENT), new PingpongDest(0, 0x18, 0xb98426, gid("fd77::12")).encode());
    }

    @Test
    void decodeGivesTheLoggedAddresses() throws Exception {
        assertEquals(new PingpongDest(0, 0x17, 0xf085a6, gid("::ffff:10.77.0.11")), PingpongDest.decode(hex(V4_SERVER)));
        assertEquals(new PingpongDest(0, 0x18, 0x291b68, gid("fd77::11")), PingpongDest.decode(hex(V6_SERVER)));
    }

    @Test
    void clientSideOfTheExchangeReplaysTheCapture() throws Exception {
        ByteArrayOutputStream wrote = new ByteArrayOutputStream();
        PingpongDest rem = RcPingpong.clientExchange(new ByteArrayInputStream(hex(V4_SERVER)), wrote,
                new PingpongDest(0, 0x17, 0x5706c3, gid("10.77.0.12")));
        assertArrayEquals(hex(V4_CLIENT, DONE), wrote.toByteArray());
        assertEquals(0xf085a6, rem.psn());
    }

    @Test
    void serverSideConnectsBeforeItAnswers() throws Exception {
        ByteArrayOutputStream wrote = new ByteArrayOutputStream();
        List<String> order = new ArrayList<>();
        PingpongDest rem = RcPingpong.serverExchange(new ByteArrayInputStream(hex(V6_CLIENT, DONE)), wrote,
                new PingpongDest(0, 0x18, 0x291b68, gid("fd77::11")), r -> order.add("connect, wrote " + wrote.size()));
        assertArrayEquals(hex(V6_SERVER), wrote.toByteArray());
        assertEquals(List.of("connect, wrote 0"), order);
        assertEquals(new PingpongDest(0, 0x18, 0xb98426, gid("fd77::12")), rem);
    }

    @Test
    void malformedPeerMessageIsOneLine() {
        byte[] junk = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        PerftestException e = assertThrows(PerftestException.class, () -> PingpongDest.decode(junk));
        assertTrue(e.getMessage().startsWith("peer sent a malformed address 'GET / HTTP/1.1??Host: x????'"), e.getMessage());
    }

    @Test
    void addressLinesAsTheLogs() throws Exception {
        List<String> g1 = Logs.lines("rxe-rc-pingpong.g1.txt");
        assertEquals(g1.get(0) + "\n", new PingpongDest(0, 0x17, 0xf085a6, gid("::ffff:10.77.0.11")).line(true));
        assertEquals(g1.get(1) + "\n", new PingpongDest(0, 0x17, 0x5706c3, gid("::ffff:10.77.0.12")).line(false));
        List<String> v6 = Logs.lines("rxe-rc-pingpong-ipv6.g2.txt");
        assertEquals(v6.get(0) + "\n", PingpongDest.decode(hex(V6_CLIENT)).line(true));
        assertEquals(v6.get(1) + "\n", PingpongDest.decode(hex(V6_SERVER)).line(false));
    }

    @Test
    void resultLinesAsTheLogs() {
        // g1: 5 iters of 64 B in 36416 us (7283.20 usec/iter x 5); g2: 45940 us (9188.00 x 5)
        List<String> g1 = Logs.lines("rxe-rc-pingpong.g1.txt");
        assertEquals(g1.get(2) + "\n" + g1.get(3) + "\n", RcPingpong.result(640, 36416, 5));
        List<String> g2 = Logs.lines("rxe-rc-pingpong.g2.txt");
        assertEquals(g2.get(2) + "\n" + g2.get(3) + "\n", RcPingpong.result(640, 45940, 5));
        List<String> v6 = Logs.lines("rxe-rc-pingpong-ipv6.g1.txt");
        assertEquals(v6.get(2) + "\n" + v6.get(3) + "\n", RcPingpong.result(640, 59042, 5));
    }

    @Test
    void briefFigures() {
        assertEquals("8192000 bytes in 0.01 seconds = 6553.60 Mbit/sec\n1000 iters in 0.01 seconds = 10.00 usec/iter\n",
                RcPingpong.result(8192000, 10000, 1000));
    }

    @Test
    void inetNtopAsGlibc() {
        // RFC 5952 section 4 forms; IPv4-mapped and -compatible as glibc's inet_ntop6 prints them
        assertEquals("::ffff:10.77.0.11", InetNtop.ntop6(hex("00000000000000000000ffff0a4d000b")));
        assertEquals("fd77::11", InetNtop.ntop6(hex("fd770000000000000000000000000011")));
        assertEquals("::", InetNtop.ntop6(new byte[16]));
        assertEquals("::1", InetNtop.ntop6(hex("00000000000000000000000000000001")));
        assertEquals("2001:db8::1:0:0:1", InetNtop.ntop6(hex("20010db8000000000001000000000001")));
        assertEquals("2001:db8:0:1:1:1:1:1", InetNtop.ntop6(hex("20010db8000000010001000100010001")));
        assertEquals("fe80::", InetNtop.ntop6(hex("fe800000000000000000000000000000")));
        assertEquals("::1.2.3.4", InetNtop.ntop6(hex("00000000000000000000000001020304")));
    }

    record Outcome(int exit, String out, String err) {
    }

    static Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cl = Jrdma.commandLine(new PrintStream(out, true), new PrintStream(err, true));
        int rc = cl.execute(args);
        return new Outcome(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unsupportedOptionsAreOneLineUsageErrors() {
        Outcome o = run("rc_pingpong", "-o");
        assertEquals(2, o.exit());
        assertEquals("rc_pingpong: on-demand paging (-o/-O/-P) is not supported by jrdma: its memory is always registered\n",
                o.err());
        Outcome m = run("rc_pingpong", "-m", "1000");
        assertEquals(2, m.exit());
        assertEquals("rc_pingpong: invalid MTU 1000 for -m/--mtu (choose from 256, 512, 1024, 2048, 4096)\n", m.err());
        Outcome t = run("rc_pingpong", "-t", "10.0.0.1");
        assertEquals(2, t.exit());
        assertTrue(t.err().startsWith("rc_pingpong: completion timestamps (-t)"), t.err());
    }
}
