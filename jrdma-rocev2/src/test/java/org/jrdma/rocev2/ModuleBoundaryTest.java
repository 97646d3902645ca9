package org.jrdma.rocev2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The provider exports its provider package only (its transport, sockets and counters are reached
 * through the verbs API), and provides the verbs SPI; the codecs it builds on are the provider-free
 * module {@code org.jrdma.wire}.
 */
class ModuleBoundaryTest {
    /** The descriptor of the module (class directory or jar) that {@code c} was loaded from. */
    private static ModuleDescriptor descriptorOf(Class<?> c) throws URISyntaxException {
        Path where = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<ModuleReference> found = ModuleFinder.of(where).findAll();
        assertEquals(1, found.size(), where.toString());
        return found.iterator().next().descriptor();
    }

    @Test
    void theProviderExportsOnlyItsProviderPackage() throws URISyntaxException {
        ModuleDescriptor d = descriptorOf(RxeProvider.class);
        assertEquals(Set.of("org.jrdma.rocev2"),
                d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertEquals(1, d.exports().stream().filter(e -> !e.isQualified()).count());
        ModuleDescriptor.Provides p = d.provides().iterator().next();
        assertEquals(1, d.provides().size());
        assertEquals("org.jrdma.verbs.spi.Provider", p.service());
        assertEquals(List.of(RxeProvider.class.getName()), p.providers());
    }

    /**
     * Issue 16: the transport's DCQCN is the congestion module's, which the fabric simulator shares
     * (one implementation, not a copy); it needs nothing but the JDK and exports its one package.
     */
    @Test
    void theProviderSharesDcqcnWithTheFabricThroughTheCongestionModule() throws URISyntaxException {
        ModuleDescriptor d = descriptorOf(RxeProvider.class);
        assertEquals(true, d.requires().stream().anyMatch(r -> r.name().equals("org.jrdma.congestion")),
                d.requires().toString());
        ModuleDescriptor c = descriptorOf(org.jrdma.congestion.DcqcnReactionPoint.class);
        assertEquals("org.jrdma.congestion", c.name());
        assertEquals(Set.of("java.base"),
                c.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
        assertEquals(Set.of("org.jrdma.congestion"),
                c.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
    }

    @Test
    void theCodecsNeedNothingButTheJdk() throws URISyntaxException {
        ModuleDescriptor d = descriptorOf(org.jrdma.rocev2.wire.Bth.class);
        assertEquals("org.jrdma.wire", d.name());
        assertEquals(Set.of("java.base"),
                d.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
        assertEquals(Set.of("org.jrdma.rocev2.wire", "org.jrdma.rocev2.pcap", "org.jrdma.mad",
                "org.jrdma.iwarp.wire", "org.jrdma.iwarp.pcap"),
                d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
    }
}
