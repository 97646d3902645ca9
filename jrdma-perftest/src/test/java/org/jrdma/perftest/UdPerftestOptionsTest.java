package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.perftest.TwoJvm.Run;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * perftest's options on the UD send tools (issue 10): {@code -c UD} with {@code -I/--inline_size}
 * (perftest's limits: 0..912 for any test, a UD test lowered to 884 with perftest's notice, the
 * device's own maximum checked when the test starts) and {@code -Q} (CQ moderation kept on UD at any
 * size), and runs between two JVMs that use them: inline UD SENDs with a moderated send CQ.
 */
class UdPerftestOptionsTest {
    private static Params parse(Verb verb, Params.Kind kind, String... args) {
        PerftestCommand cmd = new PerftestCommand(verb, kind, System.out);
        new CommandLine(cmd).parseArgs(args);
        return cmd.toParams();
    }

    @Test
    void inlineAboveTheUdMaximumIsLoweredToIt() {
        Params p = parse(Verb.SEND, Params.Kind.BW, "-c", "UD", "-I", "900", "-s", "64");
        assertEquals(Params.MAX_INLINE_UD, p.inlineSize);
        assertEquals(884, p.inlineSize);
        assertTrue(p.inlineLoweredForUd);
        Params rc = parse(Verb.SEND, Params.Kind.BW, "-I", "900", "-s", "64");
        assertEquals(900, rc.inlineSize, "RC keeps up to 912");
        assertFalse(rc.inlineLoweredForUd);
    }

    @Test
    void inlineAbovePerftestsMaximumIsAUsageError() {
        OptionsTest.assertOneLine(OptionsTest.run("ib_send_bw", Verb.SEND, Params.Kind.BW, "-I", "913"), 2,
                "-I/--inline_size must be between 0 and 912 (got 913)");
    }

    @Test
    void cqModerationStaysOnUdAtAnySize() {
        // above 8192 bytes perftest turns moderation off for RC/UC unless -Q is given, never for UD
        Params ud = parse(Verb.SEND, Params.Kind.BW, "-c", "UD", "-s", "4096", "-n", "200");
        assertEquals(100, ud.cqMod);
        Params q = parse(Verb.SEND, Params.Kind.BW, "-c", "UD", "-Q", "7", "-n", "200");
        assertEquals(7, q.cqMod);
    }

    @Test
    void inlineUdSendBwWithModeration() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_bw", "-c", "UD", "-I", "64", "-s", "64", "-Q", "4", "-n", "40", "-F");
        TwoProcessOperationsTest.bothOk(sc);
        for (Run r : sc) {
            TwoProcessOperationsTest.header(r, "Connection type : UD");
            TwoProcessOperationsTest.header(r, "CQ Moderation   : 4");
            r.row(TwoProcessOperationsTest.bwRow(64, 40));
        }
        TwoProcessOperationsTest.header(sc[1], "Max inline data : 64[B]");
    }

    @Test
    void inlineUdSendLat() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_lat", "-c", "UD", "-I", "64", "-s", "32", "-n", "40", "-F");
        TwoProcessOperationsTest.bothOk(sc);
        for (Run r : sc) {
            TwoProcessOperationsTest.header(r, "Max inline data : 64[B]");
            r.row(TwoProcessOperationsTest.latRow(32, 40));
        }
    }

    @Test
    void theUdLoweringIsAnnouncedAndTheDeviceMaximumChecked() {
        // 884 is above jrdma's 256-byte inline maximum: lowered, announced, then refused with the device's limit
        String saved = System.getProperty("jrdma.devices");
        java.io.PrintStream savedErr = System.err;
        java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
        System.setProperty("jrdma.devices", "udopt0=" + TwoJvm.addresses()[0]);
        System.setErr(new java.io.PrintStream(stderr, true, java.nio.charset.StandardCharsets.UTF_8));
        OptionsTest.Outcome o;
        try {
            o = OptionsTest.run("ib_send_bw", Verb.SEND, Params.Kind.BW, "-d", "udopt0", "-c", "UD", "-I", "900",
                    "-s", "64", "-n", "20");
        } finally {
            System.setErr(savedErr);
            if (saved == null) {
                System.clearProperty("jrdma.devices");
            } else {
                System.setProperty("jrdma.devices", saved);
            }
        }
        String err = stderr.toString(java.nio.charset.StandardCharsets.UTF_8) + o.err();
        assertTrue(err.contains("Setting inline size to 884 (Max inline size in UD)"), err);
        assertTrue(o.exit() != 0 && o.err().contains("above the device maximum of 256"), o.err());
    }
}
