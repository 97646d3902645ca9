package org.jrdma.ibverbs.bind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IbvLayouts} against the installed {@code <infiniband/verbs.h>}: a C program, generated from the
 * layouts' member names and compiled with gcc, prints {@code offsetof} and {@code sizeof} of every
 * member (nested ones by their dotted C path) and {@code sizeof} of every struct; each must equal the
 * layout's. The golden values come from the compiler and the header (libibverbs-dev, which
 * {@code .ci/run} installs), never from the layouts. Without gcc or the header the test is skipped
 * outside CI and fails in CI.
 */
class IbvLayoutsTest {
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    @TempDir
    Path dir;

    @Test
    void everyOffsetAndSizeMatchesTheInstalledHeader() throws Exception {
        boolean ci = System.getenv("CI") != null;
        boolean gcc = Files.isExecutable(Path.of("/usr/bin/gcc"));
        if (!ci) {
            Assumptions.assumeTrue(gcc && Files.exists(HEADER),
                    "needs gcc and libibverbs-dev (apt-get install gcc libibverbs-dev)");
        }
        Map<String, Long> expected = new LinkedHashMap<>();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include <infiniband/verbs.h>\n"
                + "int main(void) {\n");
        for (MemoryLayout l : IbvLayouts.ALL) {
            String tag = l.name().orElseThrow();
            expected.put(tag + " sizeof", l.byteSize());
            c.append("  printf(\"%s %zu\\n\", \"").append(tag).append(" sizeof\", sizeof(").append(tag).append("));\n");
            members(tag, (GroupLayout) l, 0, "", expected, c);
        }
        c.append("  return 0;\n}\n");
        Path src = dir.resolve("layouts.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("layouts");
        run(List.of("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString()));
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            int sp = line.lastIndexOf(' ');
            actual.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
        }
        assertTrue(expected.size() > 300, "checks " + expected.size() + " values");
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                wrong.add(k + ": layout " + v + ", gcc " + actual.get(k));
            }
        });
        assertEquals(List.of(), wrong);
        assertEquals(expected.keySet(), actual.keySet());
    }

    /** Adds the offset and size of each named member of {@code g} (at {@code base} in the top struct). */
    static void members(String tag, GroupLayout g, long base, String prefix, Map<String, Long> expected,
                                StringBuilder c) {
        long off = 0;
        for (MemoryLayout m : g.memberLayouts()) {
            long at = g instanceof java.lang.foreign.StructLayout ? base + off : base;
            off += m.byteSize();
            if (m instanceof PaddingLayout) {
                continue;
            }
            String name = m.name().orElseThrow();
            boolean anonymous = name.startsWith(CLayouts.ANONYMOUS);
            String path = anonymous ? prefix : prefix + (prefix.isEmpty() ? "" : ".") + name;
            if (!anonymous) {
                String key = tag + " " + path;
                expected.put(key + " offset", at);
                expected.put(key + " size", m.byteSize());
                c.append("  printf(\"%s %zu\\n\", \"").append(key).append(" offset\", offsetof(").append(tag)
                        .append(", ").append(path).append("));\n");
                c.append("  printf(\"%s %zu\\n\", \"").append(key).append(" size\", sizeof(((").append(tag)
                        .append(" *)0)->").append(path).append("));\n");
            }
            if (m instanceof GroupLayout inner) {
                members(tag, inner, at, path, expected, c);
            }
        }
    }

    static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), cmd + ":\n" + text);
        return text;
    }
}
