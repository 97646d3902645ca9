package org.jrdma.iwarp;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The software iWARP devices to offer: the entries of {@code -Djrdma.devices=...} or
 * {@code JRDMA_DEVICES} (the list the RoCE devices are configured in) whose name starts with
 * {@code jsiw}, e.g. {@code JRDMA_DEVICES=jrxe0=10.77.0.1,jsiw0=10.77.1.1}. Each device listens and
 * connects with TCP on its one IP address (a numeric IPv4 or IPv6 literal). With nothing configured:
 * {@link #DEFAULT}, two loopback devices beside the RoCE pair ({@code jrxe0=127.0.0.1},
 * {@code jrxe1=127.0.0.2}) on addresses of their own, since the CM finds a device by its address.
 *
 * @param name the device name, {@code jsiw...}
 * @param address the IP address the device binds
 */
public record SiwDeviceConfig(String name, InetAddress address) {
    /** The prefix that makes a {@code JRDMA_DEVICES} entry an iWARP device. */
    public static final String PREFIX = "jsiw";
    /** The default: {@code jsiw0=127.0.0.3,jsiw1=127.0.0.4}. */
    public static final String DEFAULT = "jsiw0=127.0.0.3,jsiw1=127.0.0.4";

    /** The configured iWARP devices (system property first, then environment, then the default). */
    public static List<SiwDeviceConfig> fromEnvironment() {
        String spec = System.getProperty("jrdma.devices");
        if (spec == null || spec.isBlank()) {
            spec = System.getenv("JRDMA_DEVICES");
        }
        if (spec == null || spec.isBlank()) {
            spec = DEFAULT;
        }
        return parse(spec);
    }

    /**
     * The iWARP entries of a device list ({@code NAME=ADDRESS}, comma-separated; entries of other
     * names and bare addresses are the RoCE provider's).
     *
     * @throws IllegalArgumentException naming the bad entry (not an IP literal, duplicate name)
     */
    public static List<SiwDeviceConfig> parse(String spec) {
        List<SiwDeviceConfig> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (String raw : spec.split(",")) {
            String e = raw.strip();
            int eq = e.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = e.substring(0, eq).strip();
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String addr = e.substring(eq + 1).strip();
            if (!name.matches("[A-Za-z0-9_.-]{1,63}")) {
                throw new IllegalArgumentException("bad device name '" + name + "' in JRDMA_DEVICES entry '" + e + "'");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("device '" + name + "' is configured twice in '" + spec + "'");
            }
            InetAddress a;
            try {
                a = InetAddress.ofLiteral(addr.startsWith("[") && addr.endsWith("]") ? addr.substring(1, addr.length() - 1) : addr);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("'" + addr + "' in JRDMA_DEVICES entry '" + e + "' is not an IP address");
            }
            out.add(new SiwDeviceConfig(name, a));
        }
        return out;
    }
}
