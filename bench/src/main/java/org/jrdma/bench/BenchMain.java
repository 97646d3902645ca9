package org.jrdma.bench;

/**
 * Runs the JMH benchmarks: {@code java -cp <bench classes + dependencies> org.jrdma.bench.BenchMain [JMH
 * options]}, the same as {@code org.openjdk.jmh.Main}. A short check run:
 * {@code BenchMain -f 1 -wi 1 -i 2 -w 1s -r 1s IcrcBench}. See package documentation for the class path.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(args);
    }
}
