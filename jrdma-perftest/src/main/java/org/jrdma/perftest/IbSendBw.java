package org.jrdma.perftest;

/** {@code ib_send_bw}: perftest's ib_send_bw, compatible with perftest 4.5 on the wire and in its output. */
public final class IbSendBw {
    private IbSendBw() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_send_bw", Verb.SEND, Params.Kind.BW, args));
    }
}
