package org.jrdma.perftest;

/** {@code ib_write_lat}: perftest's ib_write_lat, compatible with perftest 4.5 on the wire and in its output. */
public final class IbWriteLat {
    private IbWriteLat() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_write_lat", Verb.WRITE, Params.Kind.LAT, args));
    }
}
