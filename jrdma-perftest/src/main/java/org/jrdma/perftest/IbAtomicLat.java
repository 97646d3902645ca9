package org.jrdma.perftest;

/** {@code ib_atomic_lat}: perftest's ib_atomic_lat, compatible with perftest 4.5 on the wire and in its output. */
public final class IbAtomicLat {
    private IbAtomicLat() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_atomic_lat", Verb.ATOMIC, Params.Kind.LAT, args));
    }
}
