package org.jrdma.perftest;

/** {@code ib_atomic_bw}: perftest's ib_atomic_bw, compatible with perftest 4.5 on the wire and in its output. */
public final class IbAtomicBw {
    private IbAtomicBw() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, args));
    }
}
