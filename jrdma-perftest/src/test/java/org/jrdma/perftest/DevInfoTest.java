package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceAttrEx;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.TransportType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma devinfo [-v]} against the output of rdma-core 44's {@code ibv_devinfo [-v] -d rxe0} in the
 * lab's guest g1 ({@code testdata/devinfo/}, recorded as its README says).
 *
 * <p>First the layout: the guest's values, read from its own output, printed by
 * {@link DevInfo#format} give back that output byte for byte. Then a live jrdma device: the same
 * field names in the same order, and the values that must be rxe's equal to the guest's. Which
 * values differ, and why, is {@link #DIFFERING}.
 */
class DevInfoTest {
    /** A field line: tabs, a name, ':', tabs, the value (flag-list lines and GID lines have other shapes). */
    private static final Pattern FIELD = Pattern.compile("^(\\t+)([A-Za-z_0-9 ]+):\\t+(.*)$");
    private static final Pattern GID = Pattern.compile("^\\t\\t\\tGID\\[\\s*(\\d+)\\]:\\t\\t([^,]+), (.+)$");

    /**
     * The fields whose values jrdma's device does not share with the guest's rxe0, and why:
     * identity (fw_ver: jrdma's version; GUIDs: each device's own); the soft core's own limits, which
     * are older rxe's (max_qp, max_qp_wr, max_cq, max_mr, max_pd; Linux 6.1 raised them to about 2^20)
     * or its own (max_cqe: jrdma accepts 2^15 entries, rxe 2^15 - 1; max_msg_sz: 2^31 against
     * rxe's 2^23; gid_tbl_len: one GID, the device's address, where rxe has 1024 slots; max_srq,
     * max_srq_wr, max_srq_sge: SoftSrq's 2^14 SRQs of up to max_qp_wr WRs and max_sge SGEs, where
     * rxe 6.1 has 917503, 2^20 and 27; max_mw: SoftMw.MAX_MW 4096, rxe 2^19 - 1);
     * device_cap_flags: only what jrdma honours (no APM, one port, no port-active events: the soft
     * port has no link state); device_cap_flags_ex: those plus FLUSH and ATOMIC WRITE, which Linux
     * 6.1's rxe lacks; the features jrdma lacks here report 0 (max_mcast_*: no multicast);
     * port_cap_flags: rxe's CM_SUP comes with the connection manager; active_mtu: the net device's
     * MTU (the lab bridge's 1500 gives 1024, loopback 4096).
     */
    static final Set<String> DIFFERING = Set.of("fw_ver", "node_guid", "sys_image_guid", "max_qp", "max_qp_wr",
            "max_cq", "max_cqe", "max_mr", "max_pd", "device_cap_flags", "device_cap_flags_ex", "max_mw", "max_srq",
            "max_srq_wr", "max_srq_sge", "max_mcast_grp", "max_mcast_qp_attach", "max_total_mcast_qp_attach",
            "max_msg_sz", "gid_tbl_len", "port_cap_flags", "active_mtu");

    private String savedDevices;

    @BeforeEach
    void devices() {
        savedDevices = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", "dinfo0=" + TwoJvm.addresses()[0]);
    }

    @AfterEach
    void restore() {
        if (savedDevices == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", savedDevices);
        }
    }

    static String capture(String name) throws IOException {
        return Files.readString(Path.of(System.getProperty("jrdma.testdata", "../testdata"), "devinfo", name));
    }

    @Test
    void theGuestsValuesPrintAsTheGuestPrintsThem() throws IOException {
        String guest = capture("ibv_devinfo-v-d-rxe0.txt");
        assertEquals(guest, render(guest, true));
    }

    @Test
    void withoutVerboseTheGuestsValuesPrintAsTheGuestPrintsThem() throws IOException {
        String guest = capture("ibv_devinfo-d-rxe0.txt");
        assertEquals(guest, render(capture("ibv_devinfo-v-d-rxe0.txt"), false));
    }

    @Test
    void aJrdmaDeviceHasTheGuestsFieldsInItsOrder() throws IOException {
        String guest = capture("ibv_devinfo-v-d-rxe0.txt");
        String jrdma = run("devinfo", "-v", "-d", "dinfo0");
        List<String> expected = names(guest);
        org.jrdma.verbs.DeviceAttrEx ex;
        try (org.jrdma.verbs.Context c = org.jrdma.verbs.Verbs.getDevice("dinfo0").open()) {
            ex = c.queryDeviceEx();
        }
        if (ex.origAttr().maxSrq() == 0) {
            // ibv_devinfo prints max_srq_wr and max_srq_sge only for a device with SRQs
            expected.remove("max_srq_wr");
            expected.remove("max_srq_sge");
        }
        timestampFields(expected, ex);
        assertEquals(expected, names(jrdma), jrdma);
        Map<String, String> g = values(guest);
        Map<String, String> j = values(jrdma);
        for (Map.Entry<String, String> e : g.entrySet()) {
            if (!DIFFERING.contains(e.getKey()) && j.containsKey(e.getKey())) {
                assertEquals(e.getValue(), j.get(e.getKey()), e.getKey() + "\n" + jrdma);
            }
        }
        // the values the issue names: rxe's exactly
        assertEquals("0xffffffffffffffff", j.get("max_mr_size"));
        assertEquals("ATOMIC_HCA (1)", j.get("atomic_cap"));
        assertTrue(jrdma.contains("\t\t\tGID[  0]:\t\t::ffff:"), jrdma);
    }

    /**
     * rxe0 has no completion timestamps: ibv_devinfo says "completion_timestamp_mask not supported" and
     * "core clock not supported"; a device with them prints the fields "completion timestamp_mask" and
     * "hca_core_clock" in their places instead.
     */
    static void timestampFields(List<String> names, org.jrdma.verbs.DeviceAttrEx ex) {
        if (ex.completionTimestampMask() != 0) {
            names.replaceAll(n -> n.equals("completion_timestamp_mask not supported") ? "completion timestamp_mask" : n);
        }
        if (ex.hcaCoreClock() != 0) {
            names.replaceAll(n -> n.equals("core clock not supported") ? "hca_core_clock" : n);
        }
    }

    @Test
    void withoutVerboseAJrdmaDeviceHasTheGuestsFields() throws IOException {
        assertEquals(names(capture("ibv_devinfo-d-rxe0.txt")), names(run("devinfo", "-d", "dinfo0")));
    }

    @Test
    void listPrintsTheNamesAndABlankLine() {
        String out = run("devinfo", "-l");
        assertTrue(out.startsWith("1 HCA found:\n\tdinfo0\n\n"), out);
    }

    private static String run(String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        int rc = Jrdma.commandLine(out, out).execute(args);
        String s = b.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, s);
        return s;
    }

    /** The field names in order, the device's and then each port's (flag names and GIDs left out). */
    static List<String> names(String text) {
        List<String> n = new ArrayList<>();
        for (String l : text.split("\n")) {
            Matcher m = FIELD.matcher(l);
            if (m.matches()) {
                n.add(m.group(2));
            } else if (l.startsWith("\t") && l.endsWith(":") && !l.startsWith("\t\t\t\t\t")) {
                n.add(l.strip().substring(0, l.strip().length() - 1)); // general_odp_caps:, tso_caps: ...
            } else if (l.startsWith("\t") && !l.startsWith("\t\t\t\t\t") && !GID.matcher(l).matches()) {
                n.add(l.strip()); // "core clock not supported", ...
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

    /** The guest's values, read back from its {@code -v} output, through {@link DevInfo#format}. */
    static String render(String guest, boolean verbose) throws IOException {
        Map<String, String> v = values(guest);
        DeviceAttr a = DeviceAttr.builder().fwVer(v.get("fw_ver")).nodeGuid(guid(v.get("node_guid")))
                .sysImageGuid(guid(v.get("sys_image_guid"))).maxMrSize(Long.parseUnsignedLong(hex(v.get("max_mr_size")), 16))
                .pageSizeCap(Long.parseLong(hex(v.get("page_size_cap")), 16))
                .vendorId(Integer.parseInt(hex(v.get("vendor_id")), 16)).vendorPartId(i(v, "vendor_part_id"))
                .hwVer(Integer.parseInt(hex(v.get("hw_ver")), 16)).maxQp(i(v, "max_qp")).maxQpWr(i(v, "max_qp_wr"))
                .deviceCapFlags(Integer.parseUnsignedInt(hex(v.get("device_cap_flags")), 16)).maxSge(i(v, "max_sge"))
                .maxSgeRd(i(v, "max_sge_rd")).maxCq(i(v, "max_cq")).maxCqe(i(v, "max_cqe")).maxMr(i(v, "max_mr"))
                .maxPd(i(v, "max_pd")).maxQpRdAtom(i(v, "max_qp_rd_atom")).maxEeRdAtom(i(v, "max_ee_rd_atom"))
                .maxResRdAtom(i(v, "max_res_rd_atom")).maxQpInitRdAtom(i(v, "max_qp_init_rd_atom"))
                .maxEeInitRdAtom(i(v, "max_ee_init_rd_atom"))
                .atomicCap(AtomicCap.valueOf(v.get("atomic_cap").replaceAll("^ATOMIC_(\\w+) .*$", "$1")))
                .maxEe(i(v, "max_ee")).maxRdd(i(v, "max_rdd")).maxMw(i(v, "max_mw")).maxRawIpv6Qp(i(v, "max_raw_ipv6_qp"))
                .maxRawEthyQp(i(v, "max_raw_ethy_qp")).maxMcastGrp(i(v, "max_mcast_grp"))
                .maxMcastQpAttach(i(v, "max_mcast_qp_attach")).maxTotalMcastQpAttach(i(v, "max_total_mcast_qp_attach"))
                .maxAh(i(v, "max_ah")).maxFmr(i(v, "max_fmr")).maxSrq(i(v, "max_srq")).maxSrqWr(i(v, "max_srq_wr"))
                .maxSrqSge(i(v, "max_srq_sge")).maxPkeys(i(v, "max_pkeys")).localCaAckDelay(i(v, "local_ca_ack_delay"))
                .physPortCnt(i(v, "phys_port_cnt")).build();
        DeviceAttrEx ex = DeviceAttrEx.builder().origAttr(a)
                .deviceCapFlagsEx(Long.parseLong(hex(v.get("device_cap_flags_ex")), 16)).build();
        PortAttr p = PortAttr.builder().state(PortState.values()[code(v.get("state"))])
                .maxMtu(Mtu.ofValue(code(v.get("max_mtu")))).activeMtu(Mtu.ofValue(code(v.get("active_mtu"))))
                .smLid(i(v, "sm_lid")).lid(i(v, "port_lid")).lmc(Integer.parseInt(hex(v.get("port_lmc")), 16))
                .linkLayer("Ethernet".equals(v.get("link_layer")) ? LinkLayer.ETHERNET : LinkLayer.INFINIBAND)
                .maxMsgSz(Long.parseLong(hex(v.get("max_msg_sz")), 16))
                .portCapFlags(Integer.parseUnsignedInt(hex(v.get("port_cap_flags")), 16))
                .portCapFlags2(Integer.parseInt(hex(v.get("port_cap_flags2")), 16)).maxVlNum(code(v.get("max_vl_num")))
                .badPkeyCntr(Integer.parseInt(hex(v.get("bad_pkey_cntr")), 16))
                .qkeyViolCntr(Integer.parseInt(hex(v.get("qkey_viol_cntr")), 16)).smSl(i(v, "sm_sl"))
                .pkeyTblLen(i(v, "pkey_tbl_len")).gidTblLen(i(v, "gid_tbl_len")).subnetTimeout(i(v, "subnet_timeout"))
                .initTypeReply(i(v, "init_type_reply")).activeWidth(code(v.get("active_width")))
                .activeSpeed(code(v.get("active_speed"))).physState(code(v.get("phys_state"))).build();
        List<GidEntry> gids = new ArrayList<>();
        for (String l : guest.split("\n")) {
            Matcher m = GID.matcher(l);
            if (m.matches()) {
                assertEquals("RoCE v2", m.group(3));
                gids.add(new GidEntry(Gid.of(InetAddress.getByName(m.group(2))), Integer.parseInt(m.group(1)), 1,
                        GidType.ROCE_V2, 0));
            }
        }
        return DevInfo.format("rxe0", TransportType.IB, ex, i(v, "num_comp_vectors"),
                List.of(new DevInfo.Port(1, p, gids)), verbose);
    }

    private static int i(Map<String, String> v, String name) {
        String s = v.get(name);
        if (s == null) {
            throw new AssertionError("no " + name + " in the capture");
        }
        return Integer.parseInt(s);
    }

    private static String hex(String s) {
        assertTrue(s.startsWith("0x"), s);
        return s.substring(2);
    }

    /** The number in parentheses at the end: "PORT_ACTIVE (4)" -> 4. */
    private static int code(String s) {
        return Integer.parseInt(s.replaceAll("^.*\\((\\d+)\\)$", "$1"));
    }

    private static long guid(String s) {
        return Long.parseUnsignedLong(s.replace(":", ""), 16);
    }
}
