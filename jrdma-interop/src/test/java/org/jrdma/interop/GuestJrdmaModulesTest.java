package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The lab guests' jlinked runtime ({@link GuestJrdma#MODULES}) has every JDK module that a jrdma module
 * requires: a missing one stops the guest JVM at boot ("Module jdk.jfr not found, required by
 * org.jrdma.verbs", CI 2026-12-02) and every native lab test with it. No lab needed.
 */
class GuestJrdmaModulesTest {
    private static final Pattern REQUIRES = Pattern.compile("requires\\s+(?:static\\s+|transitive\\s+)*((?:java|jdk)\\.[\\w.]+)\\s*;");

    @Test
    void theGuestRuntimeHasEveryJdkModuleTheModulesRequire() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        Set<String> required = new TreeSet<>();
        List<Path> infos;
        try (Stream<Path> dirs = Files.list(root)) {
            infos = dirs.map(d -> d.resolve("src/main/java/module-info.java")).filter(Files::isRegularFile).toList();
        }
        assertFalse(infos.isEmpty(), "no module-info.java found under " + root);
        for (Path info : infos) {
            Matcher m = REQUIRES.matcher(Files.readString(info));
            while (m.find()) {
                required.add(m.group(1));
            }
        }
        Set<String> missing = new TreeSet<>(required);
        missing.removeAll(Set.of(GuestJrdma.MODULES.split(",")));
        missing.remove("java.base");
        assertEquals(Set.of(), missing, "JDK modules required by jrdma's modules but not in GuestJrdma.MODULES");
    }
}
