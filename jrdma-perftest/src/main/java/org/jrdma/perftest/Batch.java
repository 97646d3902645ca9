package org.jrdma.perftest;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma batch FILE}: runs several jrdma tool invocations one after the other in one JVM, so
 * a slow host (an emulated lab guest, where starting a JVM costs a minute) pays the start once.
 * Each non-blank line of {@code FILE} not starting with {@code #} is {@code OUTPUT TOOL ARGS...},
 * split on white space (no quoting): the tool runs as {@code jrdma TOOL ARGS...} with its stdout and
 * stderr written to the file {@code OUTPUT} (replaced), and the batch prints one line per run,
 * {@code batch: OUTPUT rc=N ms=T}. A failing run does not stop the batch. Exit status: 0 when every
 * run exited 0, else 1; 2 when {@code FILE} cannot be read or a line names no tool. Runs on the
 * calling thread.
 */
@Command(name = "batch", description = "run several jrdma tools in one JVM: each line of FILE is OUTPUT TOOL ARGS...")
final class Batch implements Callable<Integer> {
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "FILE", description = "the runs, one a line: OUTPUT TOOL ARGS...")
    Path file;

    Batch(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws IOException {
        List<String> lines = Files.readAllLines(file);
        int failed = 0;
        for (String line : lines) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] words = l.split("\\s+");
            if (words.length < 2) {
                out.println("batch: line names no tool: " + l);
                return Tools.EXIT_USAGE;
            }
            long t0 = System.nanoTime();
            int rc;
            try (PrintStream o = new PrintStream(new FileOutputStream(words[0]), true, StandardCharsets.UTF_8)) {
                rc = Jrdma.commandLine(o, o).execute(Arrays.copyOfRange(words, 1, words.length));
            }
            out.println("batch: " + words[0] + " rc=" + rc + " ms=" + (System.nanoTime() - t0) / 1_000_000);
            out.flush();
            if (rc != 0) {
                failed++;
            }
        }
        return failed == 0 ? 0 : 1;
    }
}
