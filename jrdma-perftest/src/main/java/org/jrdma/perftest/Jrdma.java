package org.jrdma.perftest;

/** The {@code jrdma} command: dispatches to the tools. */
public final class Jrdma {
    private Jrdma() {
    }

    public static void main(String[] args) {
        System.err.println("jrdma: no tools yet");
        System.exit(2);
    }
}
