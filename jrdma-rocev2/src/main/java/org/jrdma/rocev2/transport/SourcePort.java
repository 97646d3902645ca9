package org.jrdma.rocev2.transport;

/**
 * The UDP source port of RoCE v2 packets as Linux rdma_rxe chooses it (IBTA Annex A17.2.1 leaves it
 * to the sender, for ECMP entropy; the destination port is 4791). Choosing it as rxe does spreads
 * jrdma's flows over ECMP paths as rxe's are spread. Rules (measured in the lab's captures,
 * {@code shared/interop/RESULTS.md}):
 * <ul>
 * <li>RC/UC: from the address vector's 20-bit flow label, or when that is 0 from the two QPNs
 *     ({@code rdma_calc_flow_label}); then {@code 0xC000 | ((fl & 0x3FFF) ^ (fl >> 14))}
 *     ({@code rdma_flow_label_to_udp_sport}). Symmetric: both directions use the same port.</li>
 * <li>UD and QP1: {@code 0xC000 + hash_32(qpn, 14)}, i.e. {@code 0xC000 + ((qpn * 0x61C88647) >>> 18)}.</li>
 * </ul>
 */
public final class SourcePort {
    private SourcePort() {
    }

    /** The 20-bit flow label rdma_rxe derives from the local and remote QPN when the AV has none. */
    public static int flowLabel(int localQpn, int remoteQpn) {
        long v = (long) localQpn * (long) remoteQpn;
        v ^= v >>> 20;
        v ^= v >>> 40;
        return (int) (v & 0xFFFFF);
    }

    /** The source port of a flow label (20 bits). */
    public static int ofFlowLabel(int flowLabel) {
        int fl = flowLabel & 0xFFFFF;
        return 0xC000 | ((fl & 0x3FFF) ^ (fl >>> 14));
    }

    /** The source port of an RC or UC QP connected to {@code remoteQpn} with AV flow label {@code flowLabel}. */
    public static int connected(int localQpn, int remoteQpn, int flowLabel) {
        return ofFlowLabel(flowLabel != 0 ? flowLabel : flowLabel(localQpn, remoteQpn));
    }

    /** The source port of a UD QP (and of QP1). */
    public static int datagram(int qpn) {
        return 0xC000 + ((qpn * 0x61C88647) >>> 18);
    }
}
