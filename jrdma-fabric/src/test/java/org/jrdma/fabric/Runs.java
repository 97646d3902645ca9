package org.jrdma.fabric;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;

/** Test helpers: run scenario text, read the outputs. */
final class Runs {
    private Runs() {
    }

    static Network.Result run(String text, long seed, Path dir) throws IOException, ScenarioException {
        Scenario s = ScenarioParser.parse("test.fabric", text);
        return Network.build(s, seed, dir).run();
    }

    static Path shipped(String name) {
        return Path.of(System.getProperty("jrdma.root", ".."), "jrdma-fabric", "scenarios", name);
    }

    /** summary.txt as key → value. */
    static Map<String, String> summary(Path dir) throws IOException {
        Map<String, String> m = new HashMap<>();
        for (String l : Files.readAllLines(dir.resolve("summary.txt"))) {
            int sp = l.indexOf(' ');
            m.put(l.substring(0, sp), l.substring(sp + 1));
        }
        return m;
    }

    static long num(Map<String, String> s, String k) {
        return Long.parseLong(s.get(k));
    }

    /** fct.txt rows (the two addresses are hex). */
    static List<long[]> fct(Path dir) throws IOException {
        return Files.readAllLines(dir.resolve("fct.txt")).stream().map(l -> {
            String[] w = l.split(" ");
            long[] r = new long[w.length];
            for (int i = 0; i < w.length; i++) {
                r[i] = Long.parseLong(w[i], i < 2 ? 16 : 10);
            }
            return r;
        }).toList();
    }

    /** Lines of an output file split on blanks. */
    static List<long[]> rows(Path dir, String file) throws IOException {
        return Files.readAllLines(dir.resolve(file)).stream()
                .map(l -> java.util.Arrays.stream(l.trim().split(" ")).mapToLong(x -> Long.parseLong(x, 10)).toArray())
                .toList();
    }
}
