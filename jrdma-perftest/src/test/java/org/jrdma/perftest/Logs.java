package org.jrdma.perftest;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real perftest 4.5 outputs of the reference captures ({@code interop/captures/logs}). */
final class Logs {
    private Logs() {
    }

    static Path dir() {
        String shared = System.getProperty("jrdma.shared");
        if (shared == null || !Files.isDirectory(Path.of(shared))) {
            String root = System.getProperty("jrdma.root", ".");
            shared = Path.of(root).resolve("../shared").toString();
        }
        return Path.of(shared, "interop", "captures", "logs");
    }

    /** The lines of a log without its first line (the "# g1 (server): command" comment). */
    static List<String> lines(String name) {
        Path f = dir().resolve(name);
        assumeTrue(Files.isRegularFile(f), "reference log " + f + " not available");
        try {
            List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
            return all.subList(1, all.size());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The block of lines from the first line equal to {@code first} through {@code count} lines. */
    static String block(List<String> lines, String first, int count) {
        int i = lines.indexOf(first);
        if (i < 0) {
            throw new AssertionError("no line '" + first + "' in the log");
        }
        return String.join("\n", lines.subList(i, i + count)) + "\n";
    }

    /** The header block: from the line with the test title (one dash line before) to the next dash line. */
    static String header(List<String> lines, String title) {
        int t = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(title)) {
                t = i;
                break;
            }
        }
        if (t < 1) {
            throw new AssertionError("no title '" + title + "' in the log");
        }
        int end = t + 1;
        while (!lines.get(end).startsWith("-----")) {
            end++;
        }
        return String.join("\n", lines.subList(t - 1, end + 1)) + "\n";
    }
}
