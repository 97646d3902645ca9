package org.jrdma.verbs;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;

/**
 * Issue 15 (app): no "SLF4J(W): No SLF4J providers were found" lines on an application's standard
 * error by default. The providers log through SLF4J 2; an application that has no SLF4J provider
 * (logback, slf4j-simple, log4j-slf4j2-impl, ...) would get those three warning lines from SLF4J when
 * a device opens. Before any provider is loaded, {@link Verbs} calls {@link #apply()}: when no
 * {@code org.slf4j.spi.SLF4JServiceProvider} is visible (on the class path as a
 * {@code META-INF/services} entry, nor on the module path as a module that provides it) and the
 * application has not set {@code slf4j.internal.verbosity} itself, it sets that system property to
 * {@code ERROR} (SLF4J's own switch for its internal reports, read once when SLF4J initializes), so
 * that SLF4J falls back to its no-operation logger silently. With a provider present nothing is
 * changed; {@code -Dslf4j.internal.verbosity=WARN} brings the warning back.
 *
 * <p>Thread: the first caller of {@link Verbs}'s methods (class initialization, so once per JVM).
 */
final class QuietLogging {
    static final String VERBOSITY = "slf4j.internal.verbosity";
    private static final String SERVICE = "org.slf4j.spi.SLF4JServiceProvider";

    private QuietLogging() {
    }

    static void apply() {
        if (System.getProperty(VERBOSITY) == null && !providerVisible()) {
            System.setProperty(VERBOSITY, "ERROR");
        }
    }

    /** Whether an SLF4J 2 provider can be found by SLF4J's ServiceLoader, on the module path or the class path. */
    static boolean providerVisible() {
        ModuleLayer layer = QuietLogging.class.getModule().getLayer();
        for (ModuleLayer l : layer != null ? java.util.List.of(layer, ModuleLayer.boot()) : java.util.List.of(ModuleLayer.boot())) {
            for (Module m : l.modules()) {
                for (ModuleDescriptor.Provides p : m.getDescriptor().provides()) {
                    if (p.service().equals(SERVICE)) {
                        return true;
                    }
                }
            }
        }
        for (ClassLoader cl : new ClassLoader[] {QuietLogging.class.getClassLoader(), Thread.currentThread().getContextClassLoader(),
                ClassLoader.getSystemClassLoader()}) {
            try {
                if (cl != null && cl.getResources("META-INF/services/" + SERVICE).hasMoreElements()) {
                    return true;
                }
            } catch (IOException e) {
                return true; // cannot tell: leave SLF4J as it is
            }
        }
        return false;
    }
}
