package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.Verbs;
import org.junit.jupiter.api.Test;

/**
 * jrdma's iWARP device against {@code ibv_devinfo -v -d siw0} of Linux siw in the lab
 * ({@code testdata/devinfo/ibv_devinfo-v-d-siw0.txt}): every attribute that does not depend on the
 * soft core's table sizes or the netdev (MTU, GUID) has siw's value.
 */
class SiwDevinfoTest {
    static {
        System.setProperty("jrdma.devices", "jsiw0=127.0.0.3");
    }

    private static Map<String, String> recorded() throws IOException {
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "devinfo", "ibv_devinfo-v-d-siw0.txt");
        List<String> lines = Files.readAllLines(p);
        Map<String, String> m = new HashMap<>();
        for (String l : lines) {
            int colon = l.indexOf(':');
            if (colon > 0) {
                String k = l.substring(0, colon).strip();
                String v = l.substring(colon + 1).strip();
                m.putIfAbsent(k, v);
            }
        }
        return m;
    }

    private static long num(String v) {
        String first = v.split("\\s+")[0];
        return first.startsWith("0x") ? Long.parseUnsignedLong(first.substring(2), 16) : Long.parseLong(first);
    }

    @Test
    void attributesAreSiws() throws IOException {
        Map<String, String> siw = recorded();
        assertEquals("iWARP (1)", siw.get("transport"));
        try (Context c = Verbs.getDevice("jsiw0").open()) {
            assertEquals(org.jrdma.verbs.TransportType.IWARP, c.device().transportType());
            DeviceAttr a = c.queryDevice();
            assertEquals(num(siw.get("vendor_id")), a.vendorId());
            assertEquals(num(siw.get("vendor_part_id")), a.vendorPartId());
            assertEquals(num(siw.get("page_size_cap")), a.pageSizeCap());
            assertEquals(num(siw.get("max_mr_size")), a.maxMrSize());
            assertEquals(num(siw.get("device_cap_flags")), Integer.toUnsignedLong(a.deviceCapFlags()));
            assertEquals(num(siw.get("max_sge")), a.maxSge());
            assertEquals(num(siw.get("max_sge_rd")), a.maxSgeRd());
            assertEquals(num(siw.get("max_qp_rd_atom")), a.maxQpRdAtom());
            assertEquals(num(siw.get("max_qp_init_rd_atom")), a.maxQpInitRdAtom());
            assertEquals("ATOMIC_NONE (0)", siw.get("atomic_cap"));
            assertEquals(org.jrdma.verbs.AtomicCap.NONE, a.atomicCap());
            for (String k : List.of("max_mw", "max_ah", "max_pkeys", "local_ca_ack_delay", "max_ee", "max_rdd",
                    "max_mcast_grp", "max_fmr")) {
                assertEquals(0, num(siw.get(k)), k + " of siw");
            }
            assertEquals(0, a.maxMw());
            assertEquals(0, a.maxAh());
            assertEquals(0, a.maxPkeys());
            assertEquals(0, a.localCaAckDelay());
            assertEquals(num(siw.get("max_srq_sge")), a.maxSrqSge());
            assertEquals(num(siw.get("phys_port_cnt")), a.physPortCnt());
            // the soft core's limits are below siw's; each reported count is one the core honours
            assertTrue(a.maxQp() <= num(siw.get("max_qp")) && a.maxQpWr() <= num(siw.get("max_qp_wr")));
            assertTrue(a.maxCqe() <= num(siw.get("max_cqe")) && a.maxMr() <= num(siw.get("max_mr")));
            assertEquals((long) a.maxQp() * a.maxQpRdAtom(), a.maxResRdAtom(), "siw: max_res_rd_atom = max_qp * max_ird");
            PortAttr p = c.queryPort(1);
            assertEquals("PORT_ACTIVE (4)", siw.get("state"));
            assertEquals(num(siw.get("max_msg_sz")), p.maxMsgSz());
            assertEquals(num(siw.get("port_cap_flags")), Integer.toUnsignedLong(p.portCapFlags()));
            assertEquals(num(siw.get("pkey_tbl_len")), p.pkeyTblLen());
            assertEquals(num(siw.get("gid_tbl_len")), p.gidTblLen());
            assertEquals(num(siw.get("port_lid")), p.lid());
            assertEquals("Ethernet", siw.get("link_layer"));
            assertEquals(org.jrdma.verbs.LinkLayer.ETHERNET, p.linkLayer());
            assertEquals("1X (1)", siw.get("active_width"));
            assertEquals(PortAttr.WIDTH_1X, p.activeWidth());
            assertEquals("2.5 Gbps (1)", siw.get("active_speed"));
            assertEquals(PortAttr.SPEED_SDR, p.activeSpeed());
            // MTU from the interface as siw: 1500 -> 1024 in the lab; loopback (65536) -> 4096
            assertEquals(p.maxMtu(), p.activeMtu());
        }
    }
}
