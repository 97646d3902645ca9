package org.jrdma.ibverbs.bind;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The ABI check at load: the library must be the x86-64 libibverbs of an rdma-core whose
 * {@code verbs.h} has the layouts of {@link IbvLayouts} (Debian 12's rdma-core 44; the ABI is stable
 * from the symbol versions below on: rdma-core only adds). It must define the symbol versions
 * {@link #REQUIRED_VERSIONS} (read from the file's version definitions, {@link ElfVersions}) and
 * export every symbol the provider calls. At open, {@code IbvContext} checks the rest at run time
 * (the device's name where {@code ibv_get_device_name} says, {@code verbs_context.sz}).
 */
public final class AbiCheck {
    /**
     * IBVERBS_1.1: the verbs ABI of libibverbs 1.1 onwards (every original verb's default version);
     * IBVERBS_1.5: {@code ibv_get_pkey_index}; IBVERBS_1.11: {@code _ibv_query_gid_ex} (rdma-core 32).
     */
    public static final List<String> REQUIRED_VERSIONS = List.of("IBVERBS_1.1", "IBVERBS_1.5", "IBVERBS_1.11");

    private AbiCheck() {
    }

    /**
     * @param exported whether the library exports a symbol
     * @throws LibIbverbs.Unavailable naming what does not match
     */
    public static void check(Path file, Set<String> versions, Predicate<String> exported) throws LibIbverbs.Unavailable {
        String arch = System.getProperty("os.arch");
        if (!"amd64".equals(arch) && !"x86_64".equals(arch)) {
            throw new LibIbverbs.Unavailable("the native provider's struct layouts are those of x86-64; this JVM is "
                    + arch);
        }
        for (String v : REQUIRED_VERSIONS) {
            if (!versions.contains(v)) {
                throw new LibIbverbs.Unavailable(file + " does not define symbol version " + v + " (it defines "
                        + versions + "): not an rdma-core libibverbs with the ABI of verbs.h 1.11 or newer");
            }
        }
        for (String s : LibIbverbs.SYMBOLS) {
            if (!exported.test(s)) {
                throw new LibIbverbs.Unavailable(file + " does not export " + s);
            }
        }
    }
}
