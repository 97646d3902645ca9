package org.jrdma.examples;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The examples' tests' devices: a random 127.x.y.0/24 whose .1 and .2 have UDP port 4791 free, configured
 * through {@code jrdma.devices} as jrxe0 = .1, jrxe1 = .2, jsiw0 = .3, jsiw1 = .4. Called from each test
 * class's {@code @BeforeAll}, before any provider is opened.
 */
public final class LoopbackDevices {
    private LoopbackDevices() {
    }

    /** Picks the addresses (at most 52 tries, then {@link AssertionError}), sets the property, returns the four addresses. */
    public static String[] configure() {
        for (int attempt = 0; ; attempt++) {
            String net = "127." + ThreadLocalRandom.current().nextInt(1, 255) + "." + ThreadLocalRandom.current().nextInt(0, 256) + ".";
            try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(net + "1", 4791));
                 DatagramSocket b = new DatagramSocket(new InetSocketAddress(net + "2", 4791))) {
                String[] ips = {net + "1", net + "2", net + "3", net + "4"};
                System.setProperty("jrdma.devices", "jrxe0=" + ips[0] + ",jrxe1=" + ips[1] + ",jsiw0=" + ips[2] + ",jsiw1=" + ips[3]);
                return ips;
            } catch (IOException e) {
                if (attempt > 50) {
                    throw new AssertionError("no free loopback pair");
                }
            }
        }
    }
}
