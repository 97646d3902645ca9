package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.jrdma.verbs.Context;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Option parsing and the tools' error behaviour: one line "tool: reason" on stderr, exit 2 for a
 * usage error and 1 for a failure, no stack trace.
 */
class OptionsTest {
    private String savedDevices;

    @BeforeEach
    void devices() {
        savedDevices = System.getProperty("jrdma.devices");
        // addresses of our own, so tests of other modules holding 127.0.0.1:4791 do not interfere
        System.setProperty("jrdma.devices", "optd0=127.0.0.71,optd1=127.0.0.72");
        System.setProperty("jrdma.stats.dir", "off"); // no counter files from these runs
    }

    @AfterEach
    void restore() {
        System.clearProperty("jrdma.stats.dir");
        if (savedDevices == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", savedDevices);
        }
    }

    record Outcome(int exit, String out, String err) {
    }

    static Outcome run(String tool, Verb verb, Params.Kind kind, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Tools.commandLine(tool, verb, kind, new PrintStream(out, true), new PrintStream(err, true)).execute(args);
        return new Outcome(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static void assertOneLine(Outcome o, int exit, String expected) {
        assertEquals(exit, o.exit(), o.err());
        assertTrue(o.err().endsWith("\n") && o.err().indexOf('\n') == o.err().length() - 1,
                "one line expected: " + o.err());
        assertTrue(o.err().contains(expected), "'" + expected + "' expected in: " + o.err());
        assertTrue(!o.err().contains("\tat "), o.err());
    }

    @Test
    void usageErrors() {
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "--foo"), 2, "ib_write_bw: Unknown option: '--foo'");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-n", "3"), 2,
                "ib_write_bw: -n/--iters must be between 5 and 100000000");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-n", "many"), 2, "ib_write_bw: ");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-s", "abc"), 2, "'abc' is not a size");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-m", "1000"), 2, "invalid MTU 1000");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-c", "XRC"), 2, "invalid connection type 'XRC'");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-c", "UD"), 2, "UD connection only possible");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-A", "CMP_AND_SWAP"), 2, "only for the atomic");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-e"), 2, "not available on WRITE");
        assertOneLine(run("ib_write_lat", Verb.WRITE, Params.Kind.LAT, "-q", "2"), 2, "only available on BW tests");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "--output=foo"), 2, "invalid --output 'foo'");
        assertOneLine(run("ib_write_lat", Verb.WRITE, Params.Kind.LAT, "--output=bandwidth"), 2, "latency tests");
        assertOneLine(run("ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, "-A", "SWAP"), 2, "invalid atomic type");
        assertOneLine(run("ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, "-s", "64"), 2, "cannot be changed for atomic");
        assertOneLine(run("ib_read_bw", Verb.READ, Params.Kind.BW, "-I", "64"), 2, "inline (-I) not available");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "a", "b"), 2, "ib_write_bw: ");
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-l", "3", "-n", "10"), 2, "multiple of the post list");
    }

    @Test
    void parsedValues() {
        PerftestCommand cmd = new PerftestCommand(Verb.WRITE, Params.Kind.BW, System.out);
        CommandLine cl = new CommandLine(cmd);
        cl.setCommandName("ib_write_bw");
        cl.parseArgs("-d", "jrxe1", "-x", "0", "-s", "4K", "-n", "10", "-F", "--report_gbits", "-m", "1024", "-p",
                "20000", "-Q", "2", "10.0.0.9");
        Params p = cmd.toParams();
        assertEquals("jrxe1", p.ibDev);
        assertEquals(0, p.gidIndex);
        assertEquals(4096, p.size);
        assertEquals(10, p.iters);
        assertEquals(10, p.txDepth); // tx depth capped to the iterations
        assertEquals(2, p.cqMod);
        assertEquals(1024, p.mtu);
        assertEquals(20000, p.port);
        assertTrue(p.reportGbits);
        assertEquals(Params.Machine.CLIENT, p.machine);
        assertEquals("10.0.0.9", p.serverName);

        PerftestCommand d = new PerftestCommand(Verb.WRITE, Params.Kind.BW, System.out);
        CommandLine dl = new CommandLine(d);
        dl.parseArgs("-s", "65536");
        Params q = d.toParams();
        assertEquals(Params.Machine.SERVER, q.machine);
        assertEquals(5000, q.iters);
        assertEquals(128, q.txDepth);
        assertEquals(1, q.cqMod); // over 8192 bytes moderation is off unless asked for
        assertEquals(Params.DEF_PORT, q.port);
    }

    @Test
    void helpAndVersion() {
        Outcome h = run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "--help");
        assertEquals(0, h.exit());
        assertTrue(h.out().contains("--ib-dev") && h.out().contains("--report_gbits"), h.out());
        Outcome v = run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-V");
        assertTrue(v.out().startsWith("Version: 6.06"), v.out());
    }

    @Test
    void jrdmaDispatches() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true);
        assertEquals(2, Jrdma.commandLine(System.out, e).execute("ib_write_bw", "-n", "1"));
        assertTrue(err.toString().startsWith("ib_write_bw: -n/--iters"), err.toString());
        err.reset();
        assertEquals(2, Jrdma.commandLine(System.out, e).execute("ib_nope"));
        assertEquals(1, err.toString().split("\n").length, err.toString());
        err.reset();
        assertEquals(2, Jrdma.commandLine(System.out, e).execute());
        assertTrue(err.toString().contains("name a tool"), err.toString());
    }

    @Test
    void unknownDevice() {
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-d", "nosuch"), 1,
                "ib_write_bw: no RDMA device 'nosuch' (devices: optd0, optd1)");
    }

    @Test
    void connectionRefused() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertOneLine(run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-d", "optd0", "-p", Integer.toString(port),
                "127.0.0.1"), 1, "ib_write_bw: cannot connect to 127.0.0.1:" + port + ": Connection refused");
    }

    /** A peer that answers the version exchange with something else. */
    @Test
    void peerOfAnotherFormat() throws Exception {
        assertOneLine(fakePeer("HTTP/1.1 400 Bad"), 1, "does not speak perftest's exchange format");
        assertOneLine(fakePeer("5.60\0\0\0\0\0\0\0\0\0\0\0\0"), 1, "older than 5.70");
    }

    private Outcome fakePeer(String reply) throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread t = Thread.ofVirtual().start(() -> {
                try (Socket s = ss.accept()) {
                    InputStream in = s.getInputStream();
                    in.readNBytes(16);
                    OutputStream o = s.getOutputStream();
                    o.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                    o.flush();
                    in.read(); // until the tool closes
                } catch (Exception ignored) {
                    // the tool closed the connection
                }
            });
            Outcome o = run("ib_write_bw", Verb.WRITE, Params.Kind.BW, "-d", "optd1", "-p",
                    Integer.toString(ss.getLocalPort()), "127.0.0.1");
            t.join(5000);
            return o;
        }
    }

    /** Without -d the first device that opens is taken: one whose UDP 4791 is taken is skipped. */
    @Test
    void busyDeviceIsSkipped() throws Exception {
        System.setProperty("jrdma.devices", "busy0=127.0.0.73,busy1=127.0.0.74");
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.73", 4791))) {
            Params p = Params.defaults("ib_write_bw", Verb.WRITE, Params.Kind.BW);
            try (Context c = Perftest.openDevice(p)) {
                assertEquals("busy1", c.device().name());
                assertEquals("busy1", p.ibDev);
            }
            try (DatagramSocket also = new DatagramSocket(new InetSocketAddress("127.0.0.74", 4791))) {
                PerftestException e = assertThrows(PerftestException.class,
                        () -> Perftest.openDevice(Params.defaults("ib_write_bw", Verb.WRITE, Params.Kind.BW)));
                assertTrue(e.getMessage().startsWith("no RDMA device could be opened (busy0: EADDRINUSE"), e.getMessage());
            }
        }
    }
}
