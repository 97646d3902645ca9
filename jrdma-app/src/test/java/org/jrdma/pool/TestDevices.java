package org.jrdma.pool;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The devices of a test JVM (a JVM per test class): jrxe0/jrxe1 (soft RoCE) and jsiw0/jsiw1 (soft
 * iWARP) on four addresses of a random 127.X.Y.0/24, so that test runs at the same time on this
 * machine do not meet. Call {@link #configure()} before any device is looked at.
 */
public final class TestDevices {
    public static final String[] ADDRESSES = pick();

    private TestDevices() {
    }

    /** Sets {@code jrdma.devices}: jrxe0 = .1, jrxe1 = .2, jsiw0 = .3, jsiw1 = .4 (idempotent). */
    public static void configure() {
        System.setProperty("jrdma.devices", "jrxe0=" + ADDRESSES[0] + ",jrxe1=" + ADDRESSES[1] + ",jsiw0=" + ADDRESSES[2]
                + ",jsiw1=" + ADDRESSES[3]);
    }

    private static String[] pick() {
        for (int attempt = 0; attempt < 50; attempt++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
            String[] a = {net + "1", net + "2", net + "3", net + "4"};
            if (free(a[0]) && free(a[1])) {
                return a;
            }
        }
        throw new AssertionError("no free loopback addresses for UDP 4791");
    }

    private static boolean free(String ip) {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(ip, 4791)); ServerSocket t = new ServerSocket()) {
            t.bind(new InetSocketAddress(ip, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
