package org.jrdma.verbs;

/**
 * Port attributes, the fields of {@code struct ibv_port_attr} jrdma reports ({@code ibv_query_port(3)}).
 *
 * @param state logical port state
 * @param maxMtu largest path MTU the port supports
 * @param activeMtu path MTU of the link (for RoCE: the largest IBTA MTU below the IP MTU minus headers)
 * @param gidTblLen GID table entries
 * @param lid local identifier (0 on RoCE)
 * @param linkLayer ETHERNET for RoCE
 * @param activeSpeedGbps nominal link speed, Gbit/s (informative only for software devices)
 */
public record PortAttr(PortState state, Mtu maxMtu, Mtu activeMtu, int gidTblLen, int lid, LinkLayer linkLayer,
                       int activeSpeedGbps) {
}
