package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * jrdma in a lab guest (issue 13): the guests have rdma-core but no JDK, so a {@code jlink}ed runtime
 * of the modules the tools need (built once into {@code target/guest-jdk} from the JDK the launchers
 * use, with a CDS archive: the guest JVM starts faster under emulation) and the tools' module path
 * (the jar and {@code target/lib} of {@code bin/lib/common.sh}'s {@code jrdma_command}, which carry the
 * native provider) are copied to the lab's shared directory ({@code LAB_SHARED}, {@code /shared} in
 * the guests). There, jrdma reaches the guest's kernel devices ({@code rxe0}, {@code siw0}) through
 * the native provider only (the kernel's rxe owns UDP 4791 on the guest's addresses).
 */
final class GuestJrdma {
    /** Where the runtime lands under LAB_SHARED, and so under /shared in a guest. */
    static final String DIR = "jrdma-native";
    /**
     * The modules of the runtime (the tools: java.desktop for charts, java.management; Agrona:
     * jdk.unsupported; the Flight Recorder events of org.jrdma.verbs: jdk.jfr). Every JDK module a
     * jrdma module requires must be here ({@code GuestJrdmaModulesTest} checks it).
     */
    static final String MODULES = "java.desktop,java.management,jdk.management,jdk.unsupported,java.logging,jdk.jfr";

    private GuestJrdma() {
    }

    /**
     * Builds the runtime if needed and copies it with the module path to LAB_SHARED (replacing an
     * earlier copy: {@code lab up} empties the directory anyway).
     *
     * @return the shell command prefix that runs the jrdma tool in a guest ({@code ... Jrdma}; append
     *         the subcommand and its arguments)
     */
    /** Whether a runtime image built earlier has every module of {@link #MODULES} (its {@code release} file). */
    private static boolean hasModules(Path image) throws IOException {
        Path release = image.resolve("release");
        if (!Files.isRegularFile(release)) {
            return false;
        }
        String r = Files.readString(release);
        for (String m : MODULES.split(",")) {
            if (!java.util.regex.Pattern.compile("[\" ]" + java.util.regex.Pattern.quote(m) + "[\" ]").matcher(r).find()) {
                return false;
            }
        }
        return true;
    }

    static String install(Lab lab) throws IOException, InterruptedException {
        List<String> java = Tools.javaCommand();
        int p = java.indexOf("-p");
        if (p < 0) {
            throw new IllegalStateException("the launchers' java command has no module path: " + java);
        }
        String[] path = java.get(p + 1).split(":");
        Path jdk = Path.of(java.get(0)).getParent().getParent();
        Path image = Tools.root().resolve("target/guest-jdk");
        Path log = Files.createTempFile("guest-jdk", ".txt");
        try {
            if (Files.isExecutable(image.resolve("bin/java")) && !hasModules(image)) {
                Bounded.run(List.of("rm", "-rf", image.toString()), Map.of(), log, Duration.ofSeconds(60));
            }
            if (!Files.isExecutable(image.resolve("bin/java"))) {
                Files.createDirectories(image.getParent());
                int rc = Bounded.run(List.of(jdk.resolve("bin/jlink").toString(), "--add-modules", MODULES,
                        "--strip-debug", "--no-header-files", "--no-man-pages", "--generate-cds-archive",
                        "--output", image.toString()), Map.of(), log, Duration.ofSeconds(240));
                if (rc != 0) {
                    throw new IllegalStateException("jlink failed (rc " + rc + "): " + Files.readString(log));
                }
            }
            Path shared = Path.of(lab.get("LAB_SHARED")).resolve(DIR);
            StringBuilder sh = new StringBuilder("set -e; rm -rf \"$1\"; mkdir -p \"$1/mods\"; cp -r \"$2\" \"$1/jdk\"; ");
            sh.append("cp \"$3\" \"$1/mods/\"; for j in \"$4\"/*.jar; do cp \"$j\" \"$1/mods/\"; done");
            int rc = Bounded.run(List.of("bash", "-c", sh.toString(), "install", shared.toString(), image.toString(),
                    path[0], path[1]), Map.of(), log, Duration.ofSeconds(120));
            if (rc != 0) {
                throw new IllegalStateException("copying the guest runtime failed (rc " + rc + "): "
                        + Files.readString(log));
            }
        } finally {
            Files.deleteIfExists(log);
        }
        String g = "/shared/" + DIR;
        // C1 only and the serial collector: the guest has one emulated vCPU; no unified logging (a CDS
        // note on stderr would be mixed into the tool's output); an application CDS archive of the
        // tools' classes, written by the first run at its exit and mapped by the later ones
        return g + "/jdk/bin/java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:disable"
                + " -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=" + g + "/jrdma.jsa"
                + " --enable-native-access=org.jrdma.rocev2,org.jrdma.ibverbs,org.jrdma.app -p " + g + "/mods"
                + " -m org.jrdma.perftest/org.jrdma.perftest.Jrdma";
    }
}
