package org.jrdma.ibverbs.bind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The ABI check at load: the symbol versions read from the ELF file equal binutils' reading of them;
 * a library without libibverbs' versions is refused with a message naming the missing version; an
 * absent library is reported as absent.
 */
class AbiCheckTest {
    private static final Path LIBIBVERBS = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
    private static final Path LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

    @AfterEach
    void clear() {
        System.clearProperty(LibIbverbs.LIBRARY_PROPERTY);
    }

    @Test
    void versionDefinitionsAreThoseObjdumpPrints() throws Exception {
        Assumptions.assumeTrue(Files.exists(LIBIBVERBS), "needs libibverbs1");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/objdump")), "needs binutils' objdump");
        Process p = new ProcessBuilder("objdump", "-p", LIBIBVERBS.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String defs = out.substring(out.indexOf("Version definitions:"), out.indexOf("Version References:"));
        Set<String> expected = new LinkedHashSet<>();
        // lines "N 0xFLAGS 0xHASH NAME"
        Matcher m = Pattern.compile("(?m)^\\d+ 0x\\p{XDigit}+ 0x\\p{XDigit}+ (\\S+)$").matcher(defs);
        while (m.find()) {
            expected.add(m.group(1));
        }
        assertTrue(expected.contains("IBVERBS_1.1"), expected.toString());
        assertEquals(expected, ElfVersions.definitions(LIBIBVERBS));
    }

    @Test
    void theInstalledLibraryPasses() throws Exception {
        Assumptions.assumeTrue(Files.exists(LIBIBVERBS), "needs libibverbs1");
        LibIbverbs lib = LibIbverbs.load();
        assertTrue(lib.versions().containsAll(AbiCheck.REQUIRED_VERSIONS), lib.versions().toString());
    }

    @Test
    void aLibraryWithoutTheVersionsIsRefused() {
        Assumptions.assumeTrue(Files.exists(LIBC), "needs glibc at " + LIBC);
        System.setProperty(LibIbverbs.LIBRARY_PROPERTY, LIBC.toString());
        LibIbverbs.Unavailable e = assertThrows(LibIbverbs.Unavailable.class, LibIbverbs::load);
        assertTrue(e.getMessage().contains("does not define symbol version IBVERBS_1.1"), e.getMessage());
    }

    @Test
    void anAbsentLibraryIsReportedAbsent() {
        System.setProperty(LibIbverbs.LIBRARY_PROPERTY, "/nonexistent/libibverbs.so.1");
        LibIbverbs.Unavailable e = assertThrows(LibIbverbs.Unavailable.class, LibIbverbs::load);
        assertTrue(e.getMessage().contains("could not be loaded"), e.getMessage());
    }
}
