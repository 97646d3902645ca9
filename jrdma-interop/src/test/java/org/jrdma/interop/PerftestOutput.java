package org.jrdma.interop;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the tests read from perftest's (and jrdma's perftest-compatible) output: the result row
 * under the {@code #bytes #iterations ...} header, and lines that report an error.
 *
 * <pre>
 *  #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 *  65536      20               22.14              19.66               0.000315
 * </pre>
 */
final class PerftestOutput {
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+(?:\\.\\d+)?|inf)\\s.*");
    /**
     * perftest's warning that it could not calibrate its cycle counter ({@code get_cpu_mhz}: the
     * samples' correlation below 0.9), after which its latency rows read {@code inf}: it happens in
     * the lab's emulated (TCG) guests, whose clocks jitter.
     */
    private static final Pattern UNCALIBRATED = Pattern.compile(".*Correlation coefficient r\\^2: [0-9.]+ < 0\\.9.*");
    private static final Pattern ERROR = Pattern.compile(
            "(?i).*(\\berror\\b|\\bfailed\\b|couldn't|unable to|exception|\\bwrong\\b|mismatch).*");

    /** One result row: message size in bytes, iterations, and the first figure (BW peak or t_min). */
    record Row(long bytes, long iterations, String line) {
        /** Whether the figures are {@code inf} (perftest could not convert cycles to time). */
        boolean infinite() {
            return ROW.matcher(line).replaceFirst("$3").equals("inf");
        }
    }

    private PerftestOutput() {
    }

    /** The first row following a {@code #bytes} header, or null. */
    static Row resultRow(List<String> lines) {
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).contains("#bytes")) {
                Matcher m = ROW.matcher(lines.get(i + 1));
                if (m.matches()) {
                    return new Row(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), lines.get(i + 1));
                }
            }
        }
        return null;
    }

    /** Whether perftest said it could not calibrate its clock (its times are then {@code inf}). */
    static boolean clockUncalibrated(List<String> lines) {
        return lines.stream().anyMatch(l -> UNCALIBRATED.matcher(l).matches());
    }

    /** Lines that say something went wrong (perftest's "Couldn't ...", "... failed", Java exceptions). */
    static List<String> errorLines(List<String> lines) {
        return lines.stream().filter(l -> ERROR.matcher(l.toLowerCase(Locale.ROOT)).matches()).toList();
    }
}
