package org.jrdma.rocev2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link DeviceOptions}: for every option, {@code jrdma.KEY.DEVICE} beats {@code jrdma.KEY} beats
 * the environment variable (where there is one) beats the default; a bad value is an
 * IllegalArgumentException that names the setting, and opening the device is EINVAL.
 */
class DeviceOptionsTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    /** What an option parsed to, as a string, for the table below. */
    private static final Map<String, Function<DeviceOptions, String>> VIEW = Map.ofEntries(
            Map.entry("ipv4", DeviceOptions::ipv4Mode),
            Map.entry("pcap", o -> String.valueOf(o.pcap())),
            Map.entry("faults", o -> String.valueOf(o.faults())),
            Map.entry("spinMicros", o -> Long.toString(o.spinNanos() / 1000)),
            Map.entry("pollProgress", o -> Boolean.toString(o.pollProgress())),
            Map.entry("deferAcks", o -> Boolean.toString(o.deferAcks())),
            Map.entry("sourcePorts", o -> o.perFlowSourcePorts() ? "rxe" : "bound"),
            Map.entry("retryCnt7", o -> o.retryCnt7Unlimited() ? "unlimited" : "count"),
            Map.entry("ecn", o -> Boolean.toString(o.ecn())),
            Map.entry("dcqcn", DeviceOptions::dcqcn),
            Map.entry("cnpMicros", o -> Long.toString(o.cnpIntervalNanos() / 1000)),
            Map.entry("lineGbps", o -> Long.toString(o.lineRateBps() / 1_000_000_000L)));

    @Test
    void defaults() {
        DeviceOptions d = DeviceOptions.defaults();
        assertEquals("auto", d.ipv4Mode());
        assertNull(d.pcap());
        assertNull(d.faults());
        assertEquals(200_000, d.spinNanos());
        assertTrue(d.pollProgress());
        assertTrue(d.deferAcks());
        assertTrue(d.perFlowSourcePorts());
        assertFalse(d.retryCnt7Unlimited());
        assertTrue(d.ecn(), "ECN on, as mlx5 sends RoCE");
        assertEquals(0x02, d.trafficClass(), "ECT(0)");
        assertEquals("nvidia", d.dcqcn());
        assertTrue(d.dcqcnEnabled());
        assertEquals(50_000, d.cnpIntervalNanos());
        assertEquals(100_000_000_000L, d.lineRateBps());
        assertEquals(0, DeviceOptions.parse("jrxe0", props("jrdma.ecn", "false"), Map.of()).trafficClass(),
                "TOS 0 as rxe with ECN off");
        assertFalse(DeviceOptions.parse("jrxe0", props("jrdma.dcqcn", "OFF"), Map.of()).dcqcnEnabled());
        assertEquals(d, DeviceOptions.parse("jrxe0", new Properties(), Map.of()));
    }

    @ParameterizedTest(name = "{0}: default {1}, global {2}, device {3}")
    @CsvSource({
        "ipv4,         auto,      raw,                 udp",
        "pcap,         null,      /tmp/all.pcap,       /tmp/jrxe0.pcap",
        "faults,       null,      loss=0.01,           'dup=0.5,seed=3'",
        "spinMicros,   200,       0,                   5000",
        "pollProgress, true,      false,               true",
        "deferAcks,    true,      false,               true",
        "sourcePorts,  rxe,       bound,               rxe",
        "retryCnt7,    count,     unlimited,           count",
        "ecn,          true,      false,               true",
        "dcqcn,        nvidia,    off,                 paper",
        "cnpMicros,    50,        4,                   1000000",
        "lineGbps,     100,       25,                  1"})
    void theDevicesOwnSettingBeatsTheGlobalOneWhichBeatsTheDefault(String key, String dflt, String global,
                                                                    String device) {
        Function<DeviceOptions, String> view = VIEW.get(key);
        assertEquals(dflt, view.apply(DeviceOptions.parse("jrxe0", props(), Map.of())));
        Properties p = props("jrdma." + key, global);
        assertEquals(global, view.apply(DeviceOptions.parse("jrxe0", p, Map.of())));
        p.setProperty("jrdma." + key + ".jrxe0", device);
        assertEquals(device, view.apply(DeviceOptions.parse("jrxe0", p, Map.of())), "jrdma." + key + ".jrxe0");
        assertEquals(global, view.apply(DeviceOptions.parse("jrxe1", p, Map.of())), "another device keeps the global");
    }

    @ParameterizedTest(name = "{0} from {1}")
    @CsvSource({"ipv4, JRDMA_IPV4, udp, raw, auto", "retryCnt7, JRDMA_RETRY_CNT7, unlimited, count, count",
        "ecn, JRDMA_ECN, false, true, true", "dcqcn, JRDMA_DCQCN, off, paper, nvidia"})
    void theEnvironmentComesAfterTheProperties(String key, String env, String fromEnv, String fromProperty,
                                                String dflt) {
        Function<DeviceOptions, String> view = VIEW.get(key);
        Map<String, String> e = Map.of(env, fromEnv);
        assertEquals(dflt, view.apply(DeviceOptions.parse("jrxe0", props(), Map.of())));
        assertEquals(fromEnv, view.apply(DeviceOptions.parse("jrxe0", props(), e)));
        assertEquals(fromProperty, view.apply(DeviceOptions.parse("jrxe0", props("jrdma." + key, fromProperty), e)));
        assertEquals(fromProperty, view.apply(DeviceOptions.parse("jrxe0",
                props("jrdma." + key + ".jrxe0", fromProperty), e)));
    }

    @Test
    void aBlankSettingMeansTheDefaultAndValuesAreStripped() {
        Properties p = props("jrdma.pcap", "/tmp/all.pcap", "jrdma.pcap.jrxe1", "", "jrdma.ipv4", " udp ");
        assertEquals(Path.of("/tmp/all.pcap"), DeviceOptions.parse("jrxe0", p, Map.of()).pcap());
        assertNull(DeviceOptions.parse("jrxe1", p, Map.of()).pcap(), "jrxe1 keeps out of the global capture");
        assertEquals("udp", DeviceOptions.parse("jrxe0", p, Map.of()).ipv4Mode());
        assertEquals("auto", DeviceOptions.parse("jrxe0", props(), Map.of("JRDMA_IPV4", "  ")).ipv4Mode());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "jrdma.ipv4,                 tcp,   'jrdma.ipv4 is ''tcp'': auto, raw or udp'",
        "jrdma.ipv4.jrxe0,           RAW,   'jrdma.ipv4.jrxe0 is ''RAW'': auto, raw or udp'",
        "jrdma.spinMicros,           abc,   'jrdma.spinMicros is ''abc'': 0..10000000 (µs)'",
        "jrdma.spinMicros.jrxe0,     -1,    'jrdma.spinMicros.jrxe0 is ''-1'': 0..10000000 (µs)'",
        "jrdma.spinMicros,           10000001, 'jrdma.spinMicros is ''10000001'': 0..10000000 (µs)'",
        "jrdma.pollProgress,         yes,   'jrdma.pollProgress is ''yes'': true or false'",
        "jrdma.deferAcks.jrxe0,      0,     'jrdma.deferAcks.jrxe0 is ''0'': true or false'",
        "jrdma.sourcePorts,          fixed, 'jrdma.sourcePorts is ''fixed'': rxe or bound'",
        "jrdma.retryCnt7,            7,     'jrdma.retryCnt7 is ''7'': count or unlimited'",
        "jrdma.ecn,                  on,    'jrdma.ecn is ''on'': true or false'",
        "jrdma.dcqcn.jrxe0,          timely, 'jrdma.dcqcn.jrxe0 is ''timely'': paper, ns3-sample, nvidia or off'",
        "jrdma.cnpMicros,            0,     'jrdma.cnpMicros is ''0'': 1..1000000 (µs)'",
        "jrdma.lineGbps,             1001,  'jrdma.lineGbps is ''1001'': 1..1000 (Gbit/s)'"})
    void aBadValueNamesTheSettingAndWhatItMayBe(String property, String value, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceOptions.parse("jrxe0", props(property, value), Map.of()));
        assertEquals(message, e.getMessage());
    }

    @Test
    void aBadEnvironmentValueNamesTheVariable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceOptions.parse("jrxe0", props(), Map.of("JRDMA_IPV4", "ipv6")));
        assertEquals("JRDMA_IPV4 is 'ipv6': auto, raw or udp", e.getMessage());
    }

    @Test
    void openingADeviceWithABadOptionIsEinvalAndLeavesItClosed() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String saved = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", "optbad0=127.90." + r + ".1");
        System.setProperty("jrdma.spinMicros.optbad0", "soon");
        try {
            VerbsException e = assertThrows(VerbsException.class, () -> Verbs.getDevice("optbad0").open());
            assertEquals(Errno.EINVAL, e.errno());
            assertEquals("EINVAL: device optbad0: jrdma.spinMicros.optbad0 is 'soon': 0..10000000 (µs)", e.getMessage());
            System.clearProperty("jrdma.spinMicros.optbad0");
            try (Context ctx = Verbs.getDevice("optbad0").open()) {
                assertEquals("optbad0", ctx.device().name(), "the device opens once the option is fixed");
            }
        } finally {
            System.clearProperty("jrdma.spinMicros.optbad0");
            if (saved == null) {
                System.clearProperty("jrdma.devices");
            } else {
                System.setProperty("jrdma.devices", saved);
            }
        }
    }
}
