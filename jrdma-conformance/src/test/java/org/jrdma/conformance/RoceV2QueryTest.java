package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.PortAttr;
import org.junit.jupiter.api.Test;

/**
 * {@link QueryConformance} on the software RoCE v2 provider, and the values it must share with
 * Linux rdma_rxe: those of {@code ibv_devinfo -v -d rxe0} in the lab's guest
 * ({@code testdata/devinfo/ibv_devinfo-v-d-rxe0.txt}), where jrdma has no limit of its own.
 */
class RoceV2QueryTest extends QueryConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }

    @Test
    void theDeviceValuesRxeReports() {
        DeviceAttr a = ca.queryDevice();
        assertEquals(-1L, a.maxMrSize(), "max_mr_size 0xffffffffffffffff");
        assertEquals(0xfffff000L, a.pageSizeCap(), "page_size_cap");
        assertEquals(0xffffff, a.vendorId(), "vendor_id");
        assertEquals(0, a.vendorPartId(), "vendor_part_id");
        assertEquals(0, a.hwVer(), "hw_ver");
        assertEquals(1, a.physPortCnt(), "phys_port_cnt");
        assertEquals(32, a.maxSge(), "max_sge");
        assertEquals(32, a.maxSgeRd(), "max_sge_rd");
        assertEquals(128, a.maxQpRdAtom(), "max_qp_rd_atom");
        assertEquals(128, a.maxQpInitRdAtom(), "max_qp_init_rd_atom");
        assertEquals(258048, a.maxResRdAtom(), "max_res_rd_atom");
        assertEquals(AtomicCap.HCA, a.atomicCap(), "atomic_cap ATOMIC_HCA (1)");
        assertEquals(32767, a.maxAh(), "max_ah");
        assertEquals(64, a.maxPkeys(), "max_pkeys");
        assertEquals(15, a.localCaAckDelay(), "local_ca_ack_delay");
        assertEquals(a.nodeGuid(), a.sysImageGuid(), "sys_image_guid = node_guid, as rxe0's");
        assertEquals(1, ca.numCompVectors(), "num_comp_vectors");
    }

    @Test
    void thePortValuesRxeReports() {
        PortAttr p = ca.queryPort(1);
        assertEquals(LinkLayer.ETHERNET, p.linkLayer(), "link_layer");
        assertEquals(0, p.lid(), "port_lid");
        assertEquals(0, p.smLid(), "sm_lid");
        assertEquals(0, p.lmc(), "port_lmc");
        assertEquals(1, p.maxVlNum(), "max_vl_num 1 (1)");
        assertEquals(1, p.pkeyTblLen(), "pkey_tbl_len");
        assertEquals(PortAttr.WIDTH_1X, p.activeWidth(), "active_width 1X (1)");
        assertEquals(PortAttr.SPEED_SDR, p.activeSpeed(), "active_speed 2.5 Gbps (1)");
        assertEquals(5, p.physState(), "phys_state LINK_UP (5)");
        assertEquals(PortAttr.QPF_GRH_REQUIRED, p.flags() & PortAttr.QPF_GRH_REQUIRED, "RoCE needs a GRH");
        assertEquals(0xFFFF, ca.queryPkey(1, 0), "the default P_Key");
        assertEquals(0, ca.getPkeyIndex(1, 0xFFFF), "ibv_get_pkey_index(0xffff)");
    }

    @Test
    void theGidIsRoceV2() {
        GidEntry e = ca.queryGidEx(1, 0);
        assertEquals(GidType.ROCE_V2, e.gidType(), "RoCE v2, as every GID of rxe0");
        assertEquals(ca.queryGid(1, 0), e.gid());
    }
}
