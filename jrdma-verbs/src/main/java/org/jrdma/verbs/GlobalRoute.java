package org.jrdma.verbs;

/**
 * The global routing fields of an address vector, {@code struct ibv_global_route} (IBTA Vol 1 §8.3 GRH).
 * On RoCE v2 these become the IP header: dgid the destination address, trafficClass the TOS or
 * traffic class, hopLimit the TTL or hop limit, flowLabel (20 bits) the IPv6 flow label and an input
 * of the UDP source port.
 */
public final class GlobalRoute {
    private Gid dgid = Gid.ZERO;
    private int flowLabel;
    private int sgidIndex;
    private int hopLimit = 64;
    private int trafficClass;

    public Gid dgid() {
        return dgid;
    }

    public GlobalRoute dgid(Gid g) {
        dgid = g;
        return this;
    }

    /** 20 bits. */
    public int flowLabel() {
        return flowLabel;
    }

    public GlobalRoute flowLabel(int v) {
        flowLabel = v;
        return this;
    }

    public int sgidIndex() {
        return sgidIndex;
    }

    public GlobalRoute sgidIndex(int v) {
        sgidIndex = v;
        return this;
    }

    /** 8 bits. */
    public int hopLimit() {
        return hopLimit;
    }

    public GlobalRoute hopLimit(int v) {
        hopLimit = v;
        return this;
    }

    /** 8 bits. */
    public int trafficClass() {
        return trafficClass;
    }

    public GlobalRoute trafficClass(int v) {
        trafficClass = v;
        return this;
    }

    public GlobalRoute copyFrom(GlobalRoute o) {
        dgid = o.dgid;
        flowLabel = o.flowLabel;
        sgidIndex = o.sgidIndex;
        hopLimit = o.hopLimit;
        trafficClass = o.trafficClass;
        return this;
    }
}
