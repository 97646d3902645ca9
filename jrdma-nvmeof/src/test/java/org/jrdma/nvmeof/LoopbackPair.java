package org.jrdma.nvmeof;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * For this module's tests over soft RoCE in one JVM: a random loopback pair 127.X.Y.1 / .2 whose UDP
 * port 4791 nobody holds, configured as {@code jrdma.devices=jrxe0=…1,jrxe1=…2} (so tests running at
 * the same time on this host do not meet on one address).
 */
public final class LoopbackPair {
    private LoopbackPair() {
    }

    /**
     * Picks a free pair and sets {@code jrdma.devices} to it; call before the first device opens.
     *
     * @return the two addresses, jrxe0's first
     * @throws AssertionError if 50 random pairs were all taken
     */
    public static String[] configureJrxe() {
        for (int attempt = 0; attempt < 50; attempt++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
            if (free(net + "1") && free(net + "2")) {
                System.setProperty("jrdma.devices", "jrxe0=" + net + "1,jrxe1=" + net + "2");
                return new String[] {net + "1", net + "2"};
            }
        }
        throw new AssertionError("no free loopback address pair for UDP 4791");
    }

    private static boolean free(String ip) {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(ip, 4791))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
