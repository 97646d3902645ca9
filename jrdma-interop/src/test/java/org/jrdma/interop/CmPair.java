package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What the connection manager's interop runners share (rping, udaddy, ucmatose, lab-imm, perftest
 * {@code -R}; RoCE v2 and iWARP): when each kind of server listens, the checks every run gets, the
 * failure report, and rping's ping lines. A CM server listens on its CM port, not on a TCP socket,
 * so {@link PerftestPair}'s start waits on one of the {@link PerftestPair.Where}s here.
 */
final class CmPair {
    /** Lines of a side's output shown in a failure report, from its end. */
    static final int TAIL_LINES = 20;
    /** Characters of such a line shown. */
    static final int TAIL_WIDTH = 140;

    private CmPair() {
    }

    /**
     * A Linux rdma_cm server in guest {@code g} listens once its cm_id in LISTEN on the port shows in
     * {@code rdma resource show cm_id}; with {@code portSpace} (e.g. "UDP") only an ID of that port
     * space ({@code ps UDP}) counts.
     */
    static PerftestPair.Where linuxListener(Lab lab, String g, String portSpace) {
        String filter = portSpace == null ? "" : " | grep 'ps " + portSpace + "'";
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return g;
            }

            @Override
            public boolean listening(int port) throws IOException, InterruptedException {
                Path out = Files.createTempFile("lab-cmid", ".txt");
                try {
                    return Bounded.run(lab.exec(10, g, "rdma resource show cm_id | grep LISTEN" + filter
                            + " | grep -q ':" + port + "'"), Map.of(), out, Duration.ofSeconds(25)) == 0;
                } finally {
                    Files.deleteIfExists(out);
                }
            }
        };
    }

    /** {@link #linuxListener(Lab, String, String)} in any port space. */
    static PerftestPair.Where linuxListener(Lab lab, String g) {
        return linuxListener(lab, g, null);
    }

    /**
     * A jrdma server on the host listens once its output ({@link #serverOutput}) holds {@code marker},
     * a line the tool prints right after its {@code rdma_listen}.
     */
    static PerftestPair.Where jrdmaListener(Path output, String marker) {
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return "host";
            }

            @Override
            public boolean listening(int port) throws IOException {
                return Files.exists(output) && Files.readString(output).contains(marker);
            }
        };
    }

    /** Where {@link PerftestPair} writes the output of run {@code name}'s server on the host (removed first). */
    static Path serverOutput(String name) throws IOException {
        Path p = PerftestPair.outputDir().resolve(name + ".server-host.txt");
        Files.deleteIfExists(p);
        return p;
    }

    /** What every run must show: the server listened, both sides exited 0, every capture is clean. */
    static List<String> problems(PerftestPair.Result r, PerftestPair.Side server, PerftestPair.Side client) {
        List<String> problems = new ArrayList<>();
        if (!r.serverReady()) {
            problems.add("the server (" + server.where().name() + ") never listened");
        }
        if (r.serverRc() != 0) {
            problems.add("server (" + server.where().name() + "): exit code " + r.serverRc());
        }
        if (r.clientRc() != 0) {
            problems.add("client (" + client.where().name() + "): exit code " + r.clientRc());
        }
        for (Captures.Check c : r.captures()) {
            problems.addAll(c.problems());
        }
        return problems;
    }

    /** Prints {@code interop: NAME: ok|FAILED}; fails with the problems, both commands and their outputs' ends. */
    static void report(String name, List<String> problems, PerftestPair.Result r, PerftestPair.Side server,
            PerftestPair.Side client) {
        System.out.println("interop: " + name + ": " + (problems.isEmpty() ? "ok" : "FAILED"));
        if (!problems.isEmpty()) {
            fail(name + ":\n  " + String.join("\n  ", problems) + "\n---- server: " + String.join(" ", server.command())
                    + "\n" + tail(r.serverOut()) + "\n---- client: " + String.join(" ", client.command()) + "\n"
                    + tail(r.clientOut()) + "\n----");
        }
    }

    static String tail(List<String> out) {
        List<String> l = new ArrayList<>();
        for (String s : out.subList(Math.max(0, out.size() - TAIL_LINES), out.size())) {
            l.add(s.length() > TAIL_WIDTH ? s.substring(0, TAIL_WIDTH) + "..." : s);
        }
        return String.join("\n", l);
    }

    // ---------------------------------------------------------------- rping

    /** rping.c's ping text of {@code size} bytes: "rdma-ping-%d: " then letters from 'A' + ping, cycling 'A'..'z'. */
    static String rpingText(int ping, int size) {
        StringBuilder sb = new StringBuilder(String.format("rdma-ping-%d: ", ping));
        int c = 65 + ping % 58;
        while (sb.length() < size - 1) {
            sb.append((char) c);
            c = c == 122 ? 65 : c + 1;
        }
        return sb.toString();
    }

    /**
     * What rping writes to stderr; a side's stdout and stderr share one file, and Linux rping's
     * block-buffered stdout gets them in the middle of a line.
     */
    private static final List<String> RPING_STDERR_LINES = List.of("server DISCONNECT EVENT...\n",
            "client DISCONNECT EVENT...\n", "wait for RDMA_READ_ADV state 10\n", "wait for RDMA_WRITE_ADV state 10\n",
            "wait for RDMA_WRITE_COMPLETE state 10\n");

    /**
     * rping's {@code -v} lines of one side: exactly {@code count} lines starting with {@code prefix}
     * ("ping data: ", "server ping data: "), each with rping.c's text in order, and no "data mismatch!".
     */
    static void checkRpingLines(List<String> problems, String who, List<String> output, String prefix, int count,
            int size) {
        String text = String.join("\n", output) + "\n";
        for (String e : RPING_STDERR_LINES) {
            text = text.replace(e, "");
        }
        int ping = 0;
        for (String l : Arrays.asList(text.split("\n"))) {
            if (l.startsWith(prefix)) {
                if (!l.equals(prefix + rpingText(ping, size))) {
                    problems.add(who + ": ping " + ping + " printed other data: "
                            + l.substring(0, Math.min(80, l.length())) + "...");
                    return;
                }
                ping++;
            }
            if (l.contains("data mismatch!")) {
                problems.add(who + ": " + l);
            }
        }
        if (ping != count) {
            problems.add(who + ": " + ping + " ping lines, expected " + count);
        }
    }
}
