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
 * <tr><td>{@code ecn}</td><td>{@code JRDMA_ECN}</td><td>{@code true}</td>
 *     <td>ECN (RFC 3168) for DCQCN: every packet sent is ECN-capable, ECT(0) (IPv4 TOS / IPv6 Traffic
 *     Class 0x02), and a packet received marked CE makes the QP's notification point send a CNP to
 *     its sender (at most one per {@code cnpMicros}). {@code false}: TOS 0 as Linux rxe sends (its
 *     TOS is the address vector's traffic class, 0 from the tools), and CE is not looked at</td></tr>
 * <tr><td>{@code dcqcn}</td><td>{@code JRDMA_DCQCN}</td><td>{@code nvidia}</td>
 *     <td>the reaction point of each RC/UC QP: {@code nvidia} (ConnectX firmware defaults, as mlx5
 *     runs RoCE), {@code paper} (Zhu et al. 2015), {@code ns3-sample}, or {@code off} (CNPs received
 *     are counted as {@code rp_cnp_ignored}); parameters: {@code org.jrdma.congestion.DcqcnParameters}</td></tr>
 * <tr><td>{@code cnpMicros}</td><td></td><td>50</td>
 *     <td>the notification point's least time between two CNPs of one QP, µs (1..1,000,000)</td></tr>
 * <tr><td>{@code lineGbps}</td><td></td><td>100</td>
 *     <td>the line rate DCQCN starts at and returns to, Gbit/s (1..1000); the device does not limit
 *     itself to it: a QP is paced only below it, after a CNP</td></tr>
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
 * @param ecn whether packets are sent ECT(0) and CE-marked ones answered with CNPs
 * @param dcqcn the reaction point's parameter set ({@code nvidia}, {@code paper}, {@code ns3-sample}), or
 *        {@code off}
 * @param cnpIntervalNanos the notification point's least time between two CNPs of a QP, ns
 * @param lineRateBps the line rate of the reaction point, bit/s
 */
public record DeviceOptions(String ipv4Mode, Path pcap, String faults, long spinNanos, boolean pollProgress,
                            boolean deferAcks, boolean perFlowSourcePorts, boolean retryCnt7Unlimited, boolean ecn,
                            String dcqcn, long cnpIntervalNanos, long lineRateBps) {

    /** The IPv4 TOS / IPv6 Traffic Class byte of ECT(0) (RFC 3168 §5: ECN field 10, DSCP 0). */
    public static final int ECT0 = 0x02;

    /** The traffic class the device's packets leave with: {@link #ECT0} with ECN on, else 0. */
    public int trafficClass() {
        return ecn ? ECT0 : 0;
    }

    /** Whether the reaction point (rate limiting on CNPs) runs. */
    public boolean dcqcnEnabled() {
        return !dcqcn.equals("off");
    }

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
        Setting ecn = get(name, "ecn", "JRDMA_ECN", props, env, "true");
        if (!ecn.value.equals("true") && !ecn.value.equals("false")) {
            throw ecn.bad("true or false");
        }
        Setting dcqcn = get(name, "dcqcn", "JRDMA_DCQCN", props, env, "nvidia");
        String set = dcqcn.value.toLowerCase(java.util.Locale.ROOT);
        if (!set.equals("off") && !org.jrdma.congestion.DcqcnParameters.NAMES.contains(set)) {
            throw dcqcn.bad(String.join(", ", org.jrdma.congestion.DcqcnParameters.NAMES) + " or off");
        }
        long cnpMicros = number(get(name, "cnpMicros", null, props, env, "50"), 1, 1_000_000, "1..1000000 (µs)");
        long lineGbps = number(get(name, "lineGbps", null, props, env, "100"), 1, 1000, "1..1000 (Gbit/s)");
        return new DeviceOptions(ipv4.value, pcap.value.isEmpty() ? null : Path.of(pcap.value),
                faults.value.isEmpty() ? null : faults.value, spinMicros * 1000L, pollProgress, deferAcks,
                ports.value.equals("rxe"), r7.value.equals("unlimited"), ecn.value.equals("true"), set,
                cnpMicros * 1000L, lineGbps * 1_000_000_000L);
    }

    private static long number(Setting s, long min, long max, String allowed) {
        long v;
        try {
            v = Long.parseLong(s.value);
        } catch (NumberFormatException e) {
            throw s.bad(allowed);
        }
        if (v < min || v > max) {
            throw s.bad(allowed);
        }
        return v;
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
