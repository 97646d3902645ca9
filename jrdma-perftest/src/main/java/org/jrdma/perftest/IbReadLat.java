package org.jrdma.perftest;

/** {@code ib_read_lat}: perftest's ib_read_lat, compatible with perftest 4.5 on the wire and in its output. */
public final class IbReadLat {
    private IbReadLat() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_read_lat", Verb.READ, Params.Kind.LAT, args));
    }
}
