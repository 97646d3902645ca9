package org.jrdma.perftest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real perftest 4.5 outputs of the reference captures ({@code testdata/captures/logs}). */
final class Logs {
    private Logs() {
    }

    /** The reference captures: {@code $jrdma.testdata/captures} (set by the parent pom), else {@code ../testdata/captures}. */
    static Path captures() {
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures").toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new AssertionError("reference captures not found: " + p
                + " (the repository's testdata/captures; system property jrdma.testdata)");
        }
        return p;
    }

    static Path dir() {
        return captures().resolve("logs");
    }

    /** The lines of a log without its first line (the "# g1 (server): command" comment). */
    static List<String> lines(String name) {
        Path f = dir().resolve(name);
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
