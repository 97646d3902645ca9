package org.jrdma.perftest;

/** {@code ib_write_bw}: perftest's ib_write_bw, compatible with perftest 4.5 on the wire and in its output. */
public final class IbWriteBw {
    private IbWriteBw() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_write_bw", Verb.WRITE, Params.Kind.BW, args));
    }
}
