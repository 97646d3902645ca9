package org.jrdma.perftest;

/** {@code ib_send_lat}: perftest's ib_send_lat, compatible with perftest 4.5 on the wire and in its output. */
public final class IbSendLat {
    private IbSendLat() {
    }

    public static void main(String[] args) {
        System.exit(Tools.run("ib_send_lat", Verb.SEND, Params.Kind.LAT, args));
    }
}
