package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jrdma.fabric.cli.FabricCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code jrdma fabric run}: outputs into --out, the seed option, errors with the line and field. */
class FabricCommandTest {
    private record Ran(int status, String out, String err) {
    }

    private static Ran fabric(String... args) {
        CommandLine cl = FabricCommand.commandLine();
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        cl.setOut(new PrintWriter(o, true));
        cl.setErr(new PrintWriter(e, true));
        int status = cl.execute(args);
        return new Ran(status, o.toString(), e.toString());
    }

    @Test
    void runsAFileIntoTheOutputDirectory(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("small.fabric");
        Files.writeString(f, "topology incast senders=2 rate=10Gbps\nflows incast dst=h0 size=100KB\nduration 1ms\n");
        Ran r = fabric("run", f.toString(), "--seed", "5", "--out", tmp.resolve("out").toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("seed 5\n") && r.out().contains("flows_finished 2\n"), r.out());
        assertTrue(r.out().contains("events_per_second "), r.out());
        assertEquals(2, Files.readAllLines(tmp.resolve("out").resolve("fct.txt")).size());
    }

    @Test
    void aShippedScenarioRunsByName() {
        // --help of run, and the name lookup (without running the 200 ms scenario)
        Ran r = fabric("run", "--help");
        assertEquals(0, r.status());
        assertTrue(r.out().contains("SCENARIO"), r.out());
    }

    @Test
    void aMalformedFileFailsWithItsLineAndField(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("bad.fabric");
        Files.writeString(f, "# comment\ntopology incast senders=2 rate=10Gbps\nbuffer size=100B\n");
        Ran r = fabric("run", f.toString(), "--out", tmp.resolve("out").toString());
        assertEquals(1, r.status());
        assertEquals("fabric: bad.fabric:3: field 'size': the switch buffer (100 B) is smaller than one MTU (1062 B "
                + "with headers)\n", r.err());
    }

    @Test
    void aBudgetStopFailsWithTheReason(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("b.fabric");
        Files.writeString(f, "topology incast senders=2 rate=10Gbps\nflows incast dst=h0 size=100MB\nbudget events=5000\n");
        Ran r = fabric("run", f.toString(), "--out", tmp.resolve("out").toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("STOPPED: event budget of 5000 events spent (partial outputs)"), r.err());
        assertTrue(Files.exists(tmp.resolve("out").resolve("rate.txt")));
    }

    /** A suite file (compare lines) prints the seeds' table and writes it to DIR/table.txt. */
    @Test
    void aSuiteFilePrintsTheSeedsTable(@TempDir Path tmp) throws Exception {
        Path a = tmp.resolve("a.fabric");
        Files.writeString(a, "name a\ntopology incast senders=2 rate=10Gbps\nflows incast dst=h0 size=50KB\nduration 1ms\n");
        Path suite = tmp.resolve("suite.fabric");
        Files.writeString(suite, "# two seeds\ncompare small scenarios=" + a + " seeds=4,5 keys=flows_finished\n");
        Ran r = fabric("run", suite.toString(), "--out", tmp.resolve("out").toString());
        assertEquals(0, r.status(), r.err());
        String table = Files.readString(tmp.resolve("out").resolve("table.txt"));
        assertTrue(table.contains("| 4 | 2 |") && table.contains("| 5 | 2 |") && table.contains("| mean | 2.00 |"), table);
        assertTrue(Files.exists(tmp.resolve("out").resolve("a-seed5").resolve("summary.txt")));
        Files.writeString(suite, "compare small scenarios=" + a + " seed=4\n");
        r = fabric("run", suite.toString(), "--out", tmp.resolve("out2").toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("suite.fabric:1: field 'seed'"), r.err());
    }
}
