package org.jrdma.rocev2;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The software RoCE v2 devices to offer: {@code -Djrdma.devices=...} or the environment variable
 * {@code JRDMA_DEVICES}, a comma-separated list of {@code NAME=ADDRESS} (or bare addresses, named
 * {@code jrxe0}, {@code jrxe1}, ... in order), e.g. {@code jrxe0=10.77.0.1,jrxe1=fd77::1}. Each
 * device binds UDP port 4791 on its one IP address (a numeric IPv4 or IPv6 literal). With nothing
 * configured: {@link #DEFAULT}, two loopback devices so that two processes on one host can talk.
 *
 * @param name the device name, e.g. {@code jrxe0}
 * @param address the IP address the device binds; its GID 0
 */
public record DeviceConfig(String name, InetAddress address) {
    /** The default: {@code jrxe0=127.0.0.1,jrxe1=127.0.0.2}. */
    public static final String DEFAULT = "jrxe0=127.0.0.1,jrxe1=127.0.0.2";

    /** The configured list (system property first, then environment, then the default). */
    public static List<DeviceConfig> fromEnvironment() {
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
     * Parses a device list.
     *
     * @throws IllegalArgumentException naming the bad entry (not an IP literal, duplicate name)
     */
    public static List<DeviceConfig> parse(String spec) {
        List<DeviceConfig> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        int i = 0;
        for (String raw : spec.split(",")) {
            String e = raw.strip();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            String name = eq < 0 ? "jrxe" + i : e.substring(0, eq).strip();
            String addr = eq < 0 ? e : e.substring(eq + 1).strip();
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
            out.add(new DeviceConfig(name, a));
            i++;
        }
        return out;
    }
}
