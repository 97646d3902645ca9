package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jrdma batch FILE}: each run's output goes to its own file, one {@code batch:} line per run
 * with its exit status, a failing run does not stop the ones after it, and the batch exits 1 when one
 * failed (2 for a line that names no tool).
 */
class BatchTest {
    @TempDir
    Path dir;

    @Test
    void runsEachLineInTurnIntoItsOwnFile() throws Exception {
        Path a = dir.resolve("a.txt");
        Path b = dir.resolve("b.txt");
        Path c = dir.resolve("c.txt");
        Path file = dir.resolve("batch.txt");
        Files.writeString(file, "# comment\n" + a + " ib_write_bw --no-such-option\n\n" + b + " devinfo -d jrxe0\n"
                + c + " ib_read_bw --version\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc;
        try (PrintStream p = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            rc = Jrdma.commandLine(p, p).execute("batch", file.toString());
        }
        String lines = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, rc, lines);
        assertTrue(lines.contains("batch: " + a + " rc=2 "), lines);
        assertTrue(lines.contains("batch: " + b + " rc=0 "), lines);
        assertTrue(lines.contains("batch: " + c + " rc=0 "), lines);
        assertTrue(Files.readString(a).startsWith("ib_write_bw: "), Files.readString(a));
        assertTrue(Files.readString(b).startsWith("hca_id:\tjrxe0\n"), Files.readString(b));
        assertTrue(Files.readString(c).contains("perftest 4.5 compatible"), Files.readString(c));
    }

    @Test
    void aLineWithoutAToolIsAUsageError() throws Exception {
        Path file = dir.resolve("batch.txt");
        Files.writeString(file, dir.resolve("x.txt") + "\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream p = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            assertEquals(Tools.EXIT_USAGE, Jrdma.commandLine(p, p).execute("batch", file.toString()));
        }
    }
}
