package org.jrdma.ibverbs.bind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RdmaCmLayouts} against the installed {@code <rdma/rdma_cma.h>} (librdmacm-dev, which
 * {@code .ci/run} installs), as {@link IbvLayoutsTest} does for verbs.h: gcc's {@code offsetof} and
 * {@code sizeof} of every member and struct must equal the layout's ({@code struct rdma_cm_id} is laid
 * out only up to its route's addresses, so its {@code sizeof} is not compared). Skipped outside CI
 * without gcc or the header, failed in CI.
 */
class RdmaCmLayoutsTest {
    private static final Path HEADER = Path.of("/usr/include/rdma/rdma_cma.h");

    @TempDir
    Path dir;

    @Test
    void everyOffsetAndSizeMatchesTheInstalledHeader() throws Exception {
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")) && Files.exists(HEADER),
                    "needs gcc and librdmacm-dev (apt-get install gcc librdmacm-dev)");
        }
        Map<String, Long> expected = new LinkedHashMap<>();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include <rdma/rdma_cma.h>\n"
                + "int main(void) {\n");
        for (StructLayout l : RdmaCmLayouts.ALL) {
            String tag = l.name().orElseThrow();
            if (l != RdmaCmLayouts.CM_ID_HEAD) {
                expected.put(tag + " sizeof", l.byteSize());
                c.append("  printf(\"%s %zu\\n\", \"").append(tag).append(" sizeof\", sizeof(").append(tag).append("));\n");
            }
            IbvLayoutsTest.members(tag, (GroupLayout) l, 0, "", expected, c);
        }
        // the head is laid out only up to route.addr's two addresses: those two groups are shorter than C's
        expected.remove("struct rdma_cm_id route size");
        expected.remove("struct rdma_cm_id route.addr size");
        c.append("  return 0;\n}\n");
        Path src = dir.resolve("rdmacm.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("rdmacm");
        IbvLayoutsTest.run(List.of("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString()));
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : IbvLayoutsTest.run(List.of(exe.toString())).split("\n")) {
            int sp = line.lastIndexOf(' ');
            actual.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
        }
        assertTrue(expected.size() > 40, "checks " + expected.size() + " values");
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                wrong.add(k + ": layout " + v + ", gcc " + actual.get(k));
            }
        });
        assertEquals(List.of(), wrong);
    }
}
