package org.jrdma.bench.soak;

import java.util.Locale;

/**
 * {@code bench/soak MINUTES}: the soak of issue 9 ({@link SoakEngine}) as a program. Prints a row
 * per sample (a minute by default) and a verdict line, {@code soak: PASS ...} or
 * {@code soak: FAIL ... -- reasons}; exits 0 on a pass, 1 on a failure, 2 on bad arguments.
 *
 * <pre>
 * Soak MINUTES [--sample-seconds S] [--workers N] [--seed N] [--faults loss=P,dup=P,reorder=P,corrupt=P]
 * </pre>
 * Defaults: samples every 60 s, 4 workers, seed 1, faults
 * {@code loss=0.001,dup=0.001,reorder=0.001,corrupt=0.001} (corrupt only with raw IPv4 sockets).
 * Runs on the main thread; the engine starts and joins its own threads.
 */
public final class Soak {
    static final String DEFAULT_FAULTS = "loss=0.001,dup=0.001,reorder=0.001,corrupt=0.001";

    private Soak() {
    }

    public static void main(String[] args) {
        double minutes = -1;
        long sample = 60, seed = 1;
        int workers = 4;
        String faults = DEFAULT_FAULTS;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--sample-seconds" -> sample = Long.parseLong(args[++i]);
                    case "--workers" -> workers = Integer.parseInt(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--faults" -> faults = args[++i];
                    default -> minutes = Double.parseDouble(args[i]);
                }
            }
        } catch (RuntimeException e) {
            minutes = -1;
        }
        if (!(minutes > 0) || sample < 1 || workers < 1 || faults.contains("seed")) {
            System.err.println("usage: Soak MINUTES [--sample-seconds S] [--workers N] [--seed N]"
                    + " [--faults loss=P,dup=P,reorder=P,corrupt=P]   (no seed= in --faults: --seed sets it)");
            System.exit(2);
        }
        SoakEngine.Config cfg = new SoakEngine.Config((long) (minutes * 60e9), sample * 1_000_000_000L, workers, seed,
                faults, System.out);
        System.out.printf(Locale.ROOT, "soak: %s, %d CPUs, load %s%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), loadAverage());
        SoakEngine.Result r = new SoakEngine(cfg).run();
        System.out.flush();
        System.exit(r.pass() ? 0 : 1);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
