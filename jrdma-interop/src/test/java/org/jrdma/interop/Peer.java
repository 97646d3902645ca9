package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The jrdma-side test program {@code org.jrdma.interop.peer.RcPeer} (in this module's test sources,
 * but compiled here rather than by Maven: it is built against the tools' module path, which this
 * module does not depend on) and its command line: the launchers' JDK and module path
 * ({@link Tools#javaCommand()}), run on the host in the lab namespace with {@code ip netns exec}.
 */
final class Peer {
    static final String MAIN = "org.jrdma.interop.peer.RcPeer";
    private static Path classes;

    private Peer() {
    }

    /** Compiles RcPeer once (javac of the launchers' JDK) into {@code target/peer-classes}. */
    static synchronized Path classes() throws IOException, InterruptedException {
        if (classes == null) {
            Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
            Path src = module.resolve("src/test/java/org/jrdma/interop/peer/RcPeer.java");
            Path out = module.resolve("target/peer-classes");
            Files.createDirectories(out);
            Path java = Path.of(Tools.javaCommand().getFirst());
            Path javac = java.resolveSibling("javac");
            Path log = module.resolve("target/peer-javac.txt");
            int rc = Bounded.run(List.of(javac.toString(), "-proc:none", "--module-path", Tools.modulePath(),
                    "--add-modules", "org.jrdma.perftest", "-d", out.toString(), src.toString()), Map.of(), log,
                    Duration.ofSeconds(120));
            if (rc != 0) {
                throw new IllegalStateException("javac " + src + " failed (rc " + rc + "): " + Files.readString(log));
            }
            classes = out;
        }
        return classes;
    }

    /**
     * {@code ip netns exec NS timeout ... java [-Djrdma.pcap=OWN] ... RcPeer ARGS}; {@code ownPcap}
     * (may be null) is where the device writes its own capture.
     */
    static List<String> command(Lab lab, int limitSeconds, Path ownPcap, List<String> args)
            throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("timeout", "-k", "5", Integer.toString(limitSeconds)));
        List<String> java = Tools.javaCommand();
        c.add(java.getFirst());
        if (ownPcap != null) {
            c.add("-Djrdma.pcap=" + ownPcap.toAbsolutePath());
        }
        c.addAll(java.subList(1, java.size()));
        c.addAll(List.of("--add-modules", "org.jrdma.perftest", "-cp", classes().toString(), MAIN));
        c.addAll(args);
        return lab.inNamespace(c);
    }
}
