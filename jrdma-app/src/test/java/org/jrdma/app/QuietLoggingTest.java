package org.jrdma.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jrdma.pool.TestDevices;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Verbs;
import org.junit.jupiter.api.Test;

/**
 * An application with jrdma and no SLF4J provider on its class path (this module's test class path:
 * slf4j-api through the providers, no binding) opens a device and sees no SLF4J line on its standard
 * error; with {@code -Dslf4j.internal.verbosity=WARN} SLF4J's warning is back (so the check sees it).
 */
class QuietLoggingTest {
    /** The child JVM: opens jrxe0 and allocates a PD. */
    public static void main(String[] args) {
        TestDevices.configure();
        try (Context ctx = Verbs.getDevice("jrxe0").open()) {
            ctx.allocPd().close();
        }
        System.out.println("opened");
    }

    private static String[] run(String... props) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(List.of(props));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(QuietLoggingTest.class.getName());
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        var out = p.getInputStream().readAllBytes();
        var err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(err));
        return new String[] {new String(out), new String(err)};
    }

    @Test
    void noSlf4jProviderMeansNoSlf4jWarning() throws Exception {
        String[] quiet = run();
        assertTrue(quiet[0].contains("opened"));
        assertFalse(quiet[1].contains("SLF4J"), quiet[1]);
        String[] loud = run("-Dslf4j.internal.verbosity=WARN");
        assertTrue(loud[1].contains("No SLF4J providers were found"), "the check would see the warning: " + loud[1]);
    }
}
