package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The output layout against the real perftest 4.5 logs of the reference captures: the header
 * blocks, the address lines, the column headers and result rows, character for character
 * (tabs included).
 */
class PrinterTest {
    /** The parameters of the capture runs: -d rxe0 -x 1 -F -n 5, path MTU 1024, after the dependencies. */
    static Params captureRun(String tool, Verb verb, Params.Kind kind, boolean client, long size) {
        Params p = Params.defaults(tool, verb, kind);
        p.iters = 5;
        if (verb != Verb.ATOMIC) {
            p.size = size;
            p.reqSize = true;
        }
        p.serverName = client ? "10.77.0.11" : null;
        p.gidIndex = 1;
        p.useGidUser = true;
        p.resolve();
        p.currMtu = 3;
        p.inlineSize = 0;
        p.outReads = verb == Verb.READ || verb == Verb.ATOMIC ? 128 : 1;
        return p;
    }

    static void assertHeader(String log, Params p, String title) {
        List<String> lines = Logs.lines(log);
        assertEquals(Logs.header(lines, title), Printer.testInfo(p, "rxe0"));
    }

    @Test
    void writeBwHeaders() {
        assertHeader("rxe-rc-write-bw.g1.txt", captureRun("ib_write_bw", Verb.WRITE, Params.Kind.BW, false, 8192),
                "RDMA_Write BW Test");
        assertHeader("rxe-rc-write-bw.g2.txt", captureRun("ib_write_bw", Verb.WRITE, Params.Kind.BW, true, 8192),
                "RDMA_Write BW Test");
    }

    @Test
    void writeLatHeaders() {
        assertHeader("rxe-rc-write-lat.g1.txt", captureRun("ib_write_lat", Verb.WRITE, Params.Kind.LAT, false, 64),
                "RDMA_Write Latency Test");
        assertHeader("rxe-rc-write-lat.g2.txt", captureRun("ib_write_lat", Verb.WRITE, Params.Kind.LAT, true, 64),
                "RDMA_Write Latency Test");
    }

    @Test
    void readSendAtomicAndUcHeaders() {
        assertHeader("rxe-rc-read-bw.g1.txt", captureRun("ib_read_bw", Verb.READ, Params.Kind.BW, false, 8192),
                "RDMA_Read BW Test");
        assertHeader("rxe-rc-read-bw.g2.txt", captureRun("ib_read_bw", Verb.READ, Params.Kind.BW, true, 8192),
                "RDMA_Read BW Test");
        assertHeader("rxe-rc-send-bw.g1.txt", captureRun("ib_send_bw", Verb.SEND, Params.Kind.BW, false, 8192),
                "Send BW Test");
        assertHeader("rxe-rc-send-bw.g2.txt", captureRun("ib_send_bw", Verb.SEND, Params.Kind.BW, true, 8192),
                "Send BW Test");
        Params cs = captureRun("ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, true, 8);
        cs.atomicType = Params.AtomicType.CMP_AND_SWAP;
        assertHeader("rxe-rc-atomic-cswap.g2.txt", cs, "Atomic CMP_AND_SWAP BW Test");
        assertHeader("rxe-rc-atomic-fadd.g1.txt", captureRun("ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, false, 8),
                "Atomic FETCH_AND_ADD BW Test");
        Params uc = Params.defaults("ib_write_bw", Verb.WRITE, Params.Kind.BW);
        uc.iters = 5;
        uc.size = 2048;
        uc.connection = Params.Connection.UC;
        uc.gidIndex = 1;
        uc.resolve();
        uc.currMtu = 3;
        uc.inlineSize = 0;
        assertHeader("rxe-rc-write-bw.g1.txt".replace("rc-write", "uc-write"), uc, "RDMA_Write BW Test");
    }

    @Test
    void sendOverUdHeaderHasTheUcUdRxDepth() {
        Params p = Params.defaults("ib_send_bw", Verb.SEND, Params.Kind.BW);
        p.iters = 5;
        p.size = 64;
        p.connection = Params.Connection.UD;
        p.gidIndex = 1;
        p.resolve();
        p.currMtu = 3;
        p.inlineSize = 0;
        assertHeader("rxe-ud-send-bw.g1.txt", p, "Send BW Test");
    }

    @Test
    void serverWaitingBox() {
        List<String> lines = Logs.lines("rxe-rc-write-bw.g1.txt");
        assertEquals(String.join("\n", lines.subList(0, 4)) + "\n", Printer.WAITING);
    }

    @Test
    void addressLinesFromTheCapturedHandShakes() {
        Dest client = Dest.decode(CaptureExchangeTest.hex(CaptureExchangeTest.BW_CLIENT_KEYS));
        Dest server = Dest.decode(CaptureExchangeTest.hex(CaptureExchangeTest.BW_SERVER_KEYS));
        List<String> g1 = Logs.lines("rxe-rc-write-bw.g1.txt");
        String first = " local address: LID 0000 QPN 0x0012 PSN 0xd643c1 RKey 0x000398 VAddr 0x0055614da0f000";
        assertEquals(Logs.block(g1, first, 4),
                Printer.address("local", server, Verb.WRITE) + Printer.address("remote", client, Verb.WRITE));

        Dest readClient = Dest.decode(CaptureExchangeTest.hex(CaptureExchangeTest.READ_CLIENT_KEYS));
        List<String> rg2 = Logs.lines("rxe-rc-read-bw.g2.txt");
        assertEquals(Logs.block(rg2, " local address: LID 0000 QPN 0x0013 PSN 0x253f99 OUT 0x80 RKey 0x0004de VAddr"
                + " 0x0055f4f5c3b000", 2), Printer.address("local", readClient, Verb.READ));

        // SEND and atomic tests print no RKey/VAddr
        List<String> sg2 = Logs.lines("rxe-rc-send-bw.g2.txt");
        Dest sendClient = new Dest(0, 1, 0x11, 0xb10847, 0, 0x55841b8cf000L, client.gid(), 0);
        assertEquals(Logs.block(sg2, " local address: LID 0000 QPN 0x0011 PSN 0xb10847", 2),
                Printer.address("local", sendClient, Verb.SEND));
        List<String> ag2 = Logs.lines("rxe-rc-atomic-fadd.g2.txt");
        Dest atomicClient = new Dest(0, 0x80, 0x14, 0xcbaf60, 0x57a, 0x5602b00e1000L, client.gid(), 0);
        assertEquals(Logs.block(ag2, " local address: LID 0000 QPN 0x0014 PSN 0xcbaf60", 2),
                Printer.address("local", atomicClient, Verb.ATOMIC));
    }

    @Test
    void resultHeadersAndRows() {
        List<String> bw = Logs.lines("rxe-rc-write-bw.g2.txt");
        String fmt = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
        assertEquals(Logs.block(bw, fmt, 2).replace(fmt + "\n", ""),
                Printer.bwRow(new BwReport(8192, 5, 2.69, 2.69, 0.000344), Params.Output.FULL, false));
        int i = bw.indexOf(fmt);
        assertEquals(bw.get(i - 1) + "\n" + fmt + "\n", Printer.bwHeader(false));

        List<String> lat = Logs.lines("rxe-rc-write-lat.g1.txt");
        int h = -1;
        for (int k = 0; k < lat.size(); k++) {
            if (lat.get(k).startsWith(" #bytes #iterations")) {
                h = k;
            }
        }
        assertEquals(lat.get(h - 1) + "\n" + lat.get(h) + "\n", Printer.latHeader(false));
        LatencyStats.Result r = new LatencyStats.Result(1658.07, 3846.43, 1833.63, 1833.63, 175.00, 3846.43, 3846.43);
        assertEquals(lat.get(h + 1) + "\n", Printer.latRow(64, 5, r, Params.Output.FULL));
        assertEquals(lat.get(h + 2) + "\n", Printer.RESULT_LINE);

        // the UD send server row and the server's zero peak
        List<String> ud = Logs.lines("rxe-ud-send-bw.g1.txt");
        assertEquals(ud.get(ud.indexOf(fmt) + 1) + "\n",
                Printer.bwRow(new BwReport(64, 5, 0, 0.19, 0.003170), Params.Output.FULL, false));
    }

    @Test
    void gbitsFormats() {
        assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n",
                Printer.bwHeader(true).substring(88));
        // REPORT_FMT_EXT below 0.1 Gb/s: six decimals, iterations unpadded
        assertEquals(" 8          5           0.001000            0.000500            0.007800\n",
                Printer.bwRow(new BwReport(8, 5, 0.001, 0.0005, 0.0078), Params.Output.FULL, true));
        assertEquals("2.500000\n", Printer.bwRow(new BwReport(8, 5, 3, 2.5, 1), Params.Output.BANDWIDTH, false));
        assertTrue(Printer.bwHeader(true).startsWith("-".repeat(87) + "\n"));
    }

    @Test
    void cStyleAlternateHex() {
        assertEquals("0000", CFormat.altHex(0, 4));
        assertEquals("0x0012", CFormat.altHex(0x12, 6));
        assertEquals("0xd643c1", CFormat.altHex(0xd643c1, 6));
        assertEquals("0x80", CFormat.altHex(0x80, 4));
        assertEquals("0x0055614da0f000", CFormat.altHex(0x55614da0f000L, 16));
        assertEquals("0xea548836", CFormat.altHex(0xea548836L, 8));
    }
}
