package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The provider boundary: the tools' module requires the verbs API, the provider-free codecs and
 * the connection manager only, and still finds the software RoCE v2 provider on the module path at run time (service
 * binding of {@code uses org.jrdma.verbs.spi.Provider}), as the launchers run it.
 */
class ModuleBoundaryTest {
    private static ModuleDescriptor descriptor() throws IOException {
        try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void theToolsRequireTheVerbsApiTheCodecsAndTheCmButNoProvider() throws IOException {
        ModuleDescriptor d = descriptor();
        assertEquals("org.jrdma.perftest", d.name());
        Set<String> requires = d.requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(Set.of("java.base", "org.jrdma.verbs", "org.jrdma.wire", "org.jrdma.fabric", "org.jrdma.cm", "org.jrdma.nvmeof", "org.jrdma.examples", "org.jrdma.app", "info.picocli",
                "HdrHistogram", "org.knowm.xchart", "java.desktop", "java.management")), requires);
    }

    @Test
    void onTheModulePathTheToolsFindTheProviderThroughTheSpi() throws Exception {
        // the tools' module and its runtime dependencies, as target/lib holds them for the launchers
        List<String> path = new ArrayList<>(List.of(Path.of("target", "classes").toAbsolutePath().toString()));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String n = Path.of(e).toString();
            if (n.matches(".*/jrdma-(verbs|wire|soft|rocev2|congestion|fabric|cm|nvmeof|examples|app)/target/classes") || n.matches(
                    ".*/(jrdma-(verbs|wire|soft|rocev2|congestion|fabric|cm|nvmeof|examples|app)|picocli|HdrHistogram|xchart|VectorGraphics2D|agrona|slf4j-api"
                            + "|slf4j-simple)-[0-9][^/]*\\.jar")) {
                path.add(e);
            }
        }
        String address = TwoJvm.addresses()[0];
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=org.jrdma.rocev2", "-Djrdma.devices=bnd0=" + address,
                "-p", String.join(File.pathSeparator, path), "-m", "org.jrdma.perftest/org.jrdma.perftest.Jrdma",
                "devinfo", "-d", "bnd0");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "devinfo did not end");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
        assertTrue(out.startsWith("hca_id:\tbnd0\n"), out);
        assertTrue(Arrays.stream(out.split("\n")).anyMatch(l -> l.contains("PORT_ACTIVE")), out);
    }
}
