package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma devinfo -v} next to the guest's {@code ibv_devinfo -v -d rxe0}, both run now (issue
 * 10): jrdma's device on the lab bridge (fd77::1) prints the same fields in the same order, and
 * the same values except those jrdma does not share with rxe (the list and its reasons:
 * {@code DevInfoTest.DIFFERING} in jrdma-perftest; here {@code active_mtu} must match too, both
 * devices being on the same bridge). ibv_devinfo prints max_srq_wr and max_srq_sge only for a device
 * with SRQs, so they are expected only when jrdma's max_srq is not 0; "completion timestamp_mask" and
 * "hca_core_clock" only for a device with completion timestamps (jrdma's, not rxe0).
 */
@Order(7)
class RxeDevinfoInteropTest {
    private static final Pattern FIELD = Pattern.compile("^(\\t+)([A-Za-z_0-9 ]+):\\t+(.*)$");
    private static final Pattern GID = Pattern.compile("^\\t\\t\\tGID\\[\\s*(\\d+)\\]:\\t\\t([^,]+), (.+)$");
    static final Set<String> DIFFERING = Set.of("fw_ver", "node_guid", "sys_image_guid", "max_qp", "max_qp_wr",
            "max_cq", "max_cqe", "max_mr", "max_pd", "device_cap_flags", "device_cap_flags_ex", "max_mw", "max_srq",
            "max_srq_wr", "max_srq_sge", "max_mcast_grp", "max_mcast_qp_attach", "max_total_mcast_qp_attach",
            "max_msg_sz", "gid_tbl_len", "port_cap_flags");
    private static Lab lab;

    @BeforeAll
    static void lab() throws Exception {
        lab = Lab.fromEnvironment();
    }

    @Test
    @Timeout(120)
    void jrdmaDevinfoHasTheGuestsFieldsAndValues() throws Exception {
        Path dir = PerftestPair.outputDir();
        Path guestOut = dir.resolve("devinfo.g1.txt");
        Path jrdmaOut = dir.resolve("devinfo.jrdma.txt");
        int grc = Bounded.run(lab.exec(60, "g1", "ibv_devinfo -v -d rxe0"), Map.of(), guestOut, Duration.ofSeconds(75));
        List<String> cmd = List.of("timeout", "-k", "5", "65", Tools.root().resolve("bin/jrdma").toString(), "devinfo",
                "-v", "-d", Tools.JRDMA_DEVICE);
        int jrc = Bounded.run(lab.inNamespace(cmd), Family.IPV6.env(), jrdmaOut, Duration.ofSeconds(75));
        String guest = Files.readString(guestOut);
        String jrdma = Files.readString(jrdmaOut);
        assertEquals(0, grc, "ibv_devinfo -v -d rxe0:\n" + guest);
        assertEquals(0, jrc, "jrdma devinfo -v:\n" + jrdma);
        List<String> expected = names(guest);
        if ("0".equals(values(jrdma).get("max_srq"))) {
            expected.remove("max_srq_wr");
            expected.remove("max_srq_sge");
        }
        // rxe0 has no completion timestamps ("... not supported" lines); jrdma's device prints the two fields there
        if (values(jrdma).containsKey("completion timestamp_mask")) {
            expected.replaceAll(n -> n.equals("completion_timestamp_mask not supported") ? "completion timestamp_mask" : n);
        }
        if (values(jrdma).containsKey("hca_core_clock")) {
            expected.replaceAll(n -> n.equals("core clock not supported") ? "hca_core_clock" : n);
        }
        assertEquals(expected, names(jrdma), "field names and order\n---- guest:\n" + guest + "\n---- jrdma:\n" + jrdma);
        Map<String, String> g = values(guest);
        Map<String, String> j = values(jrdma);
        List<String> differ = new ArrayList<>();
        for (Map.Entry<String, String> e : g.entrySet()) {
            if (!DIFFERING.contains(e.getKey()) && j.containsKey(e.getKey()) && !e.getValue().equals(j.get(e.getKey()))) {
                differ.add(e.getKey() + ": rxe0 " + e.getValue() + ", jrdma " + j.get(e.getKey()));
            }
        }
        assertEquals(List.of(), differ, "values jrdma must share with rxe0");
        System.out.println("interop: devinfo -v: " + expected.size() + " fields in rxe0's order; shared values equal");
    }

    static List<String> names(String text) {
        List<String> n = new ArrayList<>();
        for (String l : text.split("\n")) {
            Matcher m = FIELD.matcher(l);
            if (m.matches()) {
                n.add(m.group(2));
            } else if (l.startsWith("\t") && l.endsWith(":") && !l.startsWith("\t\t\t\t\t")) {
                n.add(l.strip().substring(0, l.strip().length() - 1));
            } else if (l.startsWith("\t") && !l.startsWith("\t\t\t\t\t") && !GID.matcher(l).matches()) {
                n.add(l.strip());
            }
        }
        return n;
    }

    static Map<String, String> values(String text) {
        Map<String, String> v = new LinkedHashMap<>();
        for (String l : text.split("\n")) {
            Matcher m = FIELD.matcher(l);
            if (m.matches()) {
                v.putIfAbsent(m.group(2), m.group(3));
            }
        }
        return v;
    }
}
