package org.jrdma.rocev2;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * The options of one software RoCE v2 device, parsed once when the device is opened. Each option
 * is read from the system property {@code jrdma.KEY.DEVICE} (this device only), then
 * {@code jrdma.KEY} (every device), then, where one is named, an environment variable, then the
 * default; the first that is set wins. A blank value stands for the default at once (so
 * {@code -Djrdma.pcap.jrxe1=} keeps device jrxe1 out of a capture that {@code -Djrdma.pcap=FILE}
 * asks of every device). Values are stripped of surrounding blanks. The documented knobs keep
 * their meaning:
 *
 * <table>
 * <caption>Device options</caption>
 * <tr><th>key</th><th>environment</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code ipv4}</td><td>{@code JRDMA_IPV4}</td><td>{@code auto}</td>
 *     <td>IPv4 I/O: {@code raw} (own IP header, CAP_NET_RAW), {@code udp}, or {@code auto} (raw when
 *     permitted and the address is not loopback)</td></tr>
 * <tr><td>{@code pcap}</td><td></td><td>none</td><td>classic pcap file of every packet sent and received</td></tr>
 * <tr><td>{@code faults}</td><td></td><td>none</td>
 *     <td>fault shim, {@code loss=P,dup=P,reorder=P,corrupt=P,seed=N}</td></tr>
 * <tr><td>{@code spinMicros}</td><td></td><td>200</td><td>I/O agent busy-polls this long after the last packet, µs</td></tr>
 * <tr><td>{@code pollProgress}</td><td></td><td>true</td><td>threads polling an empty CQ receive for the device</td></tr>
 * <tr><td>{@code deferAcks}</td><td></td><td>true</td><td>a polling thread sends its ACKs after its next post</td></tr>
 * <tr><td>{@code sourcePorts}</td><td></td><td>{@code rxe}</td>
 *     <td>UDP source ports: {@code rxe} (per flow, rxe's rule) or {@code bound} (always 4791)</td></tr>
 * <tr><td>{@code retryCnt7}</td><td>{@code JRDMA_RETRY_CNT7}</td><td>{@code count}</td>
 *     <td>what retry_cnt 7 means: {@code count} (7 retries, IBTA and hardware) or {@code unlimited}
 *     (retry for ever, as rdma_rxe)</td></tr>
 * </table>
 *
 * @param ipv4Mode {@code auto}, {@code raw} or {@code udp}
 * @param pcap the capture file, or null
 * @param faults the fault shim's specification, or null
 * @param spinNanos how long the I/O agent spins after the last packet, ns (≥ 0)
 * @param pollProgress whether application threads polling an empty CQ receive
 * @param deferAcks whether a polling thread defers its ACKs until its next post
 * @param perFlowSourcePorts whether packets leave from rxe-style per-flow source ports
 * @param retryCnt7Unlimited whether retry_cnt 7 retries without limit (rxe) rather than 7 times
 */
public record DeviceOptions(String ipv4Mode, Path pcap, String faults, long spinNanos, boolean pollProgress,
                            boolean deferAcks, boolean perFlowSourcePorts, boolean retryCnt7Unlimited) {

    /** The defaults (nothing configured). */
    public static DeviceOptions defaults() {
        return parse("", new Properties(), Map.of());
    }

    /** The options of device {@code name} from this JVM's system properties and environment. */
    public static DeviceOptions forDevice(String name) {
        return parse(name, System.getProperties(), System.getenv());
    }

    /**
     * The options of device {@code name} from {@code props} and {@code env}.
     *
     * @throws IllegalArgumentException naming the setting it read (e.g. {@code jrdma.ipv4.jrxe0},
     *         {@code jrdma.ipv4} or {@code JRDMA_IPV4}), its bad value and what it may be
     */
    public static DeviceOptions parse(String name, Properties props, Map<String, String> env) {
        Setting ipv4 = get(name, "ipv4", "JRDMA_IPV4", props, env, "auto");
        if (!ipv4.value.equals("auto") && !ipv4.value.equals("raw") && !ipv4.value.equals("udp")) {
            throw ipv4.bad("auto, raw or udp");
        }
        Setting pcap = get(name, "pcap", null, props, env, "");
        Setting faults = get(name, "faults", null, props, env, "");
        Setting spin = get(name, "spinMicros", null, props, env, "200");
        long spinMicros;
        try {
            spinMicros = Long.parseLong(spin.value);
        } catch (NumberFormatException e) {
            spinMicros = -1;
        }
        if (spinMicros < 0 || spinMicros > 10_000_000) {
            throw spin.bad("0..10000000 (µs)");
        }
        boolean pollProgress = bool(name, "pollProgress", props, env);
        boolean deferAcks = bool(name, "deferAcks", props, env);
        Setting ports = get(name, "sourcePorts", null, props, env, "rxe");
        if (!ports.value.equals("rxe") && !ports.value.equals("bound")) {
            throw ports.bad("rxe or bound");
        }
        Setting r7 = get(name, "retryCnt7", "JRDMA_RETRY_CNT7", props, env, "count");
        if (!r7.value.equals("count") && !r7.value.equals("unlimited")) {
            throw r7.bad("count or unlimited");
        }
        return new DeviceOptions(ipv4.value, pcap.value.isEmpty() ? null : Path.of(pcap.value),
                faults.value.isEmpty() ? null : faults.value, spinMicros * 1000L, pollProgress, deferAcks,
                ports.value.equals("rxe"), r7.value.equals("unlimited"));
    }

    /**
     * Issue 14: the longest that small packets a posting thread holds for its next post wait when
     * nothing else sends them (no response, no further post or poll), from {@code jrdma.coalesceMicros}
     * (per device or for all, as the options above; default 1000 µs, about one tick of the timer
     * wheel; 1..10,000,000). Read once when the device opens.
     *
     * @throws IllegalArgumentException for a value outside that range, naming the setting
     */
    public static long coalesceNanos(String name, Properties props) {
        Setting s = get(name, "coalesceMicros", null, props, Map.of(), "1000");
        long us;
        try {
            us = Long.parseLong(s.value);
        } catch (NumberFormatException e) {
            us = -1;
        }
        if (us < 1 || us > 10_000_000) {
            throw s.bad("1..10000000 (µs)");
        }
        return us * 1000L;
    }

    private static boolean bool(String name, String key, Properties props, Map<String, String> env) {
        Setting v = get(name, key, null, props, env, "true");
        if (!v.value.equals("true") && !v.value.equals("false")) {
            throw v.bad("true or false");
        }
        return v.value.equals("true");
    }

    /** A value and where it came from: a property or environment variable name, or "default". */
    private record Setting(String where, String value) {
        IllegalArgumentException bad(String allowed) {
            return new IllegalArgumentException(where + " is '" + value + "': " + allowed);
        }
    }

    private static Setting get(String name, String key, String envName, Properties props, Map<String, String> env,
                               String dflt) {
        String where = "jrdma." + key + "." + name;
        String v = name.isEmpty() ? null : props.getProperty(where);
        if (v == null) {
            where = "jrdma." + key;
            v = props.getProperty(where);
        }
        if (v == null && envName != null) {
            where = envName;
            v = env.get(envName);
        }
        return v == null || v.isBlank() ? new Setting("default", dflt) : new Setting(where, v.strip());
    }
}
