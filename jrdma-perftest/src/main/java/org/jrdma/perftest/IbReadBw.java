package org.jrdma.perftest;

/** {@code ib_read_bw}: perftest's ib_read_bw, compatible with perftest 4.5 on the wire and in its output. */
public final class IbReadBw {
    private IbReadBw() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_read_bw", Verb.READ, Params.Kind.BW, args));
    }
}
