package org.jrdma.verbs;

/**
 * An address vector, {@code struct ibv_ah_attr} ({@code ibv_create_ah(3)}, {@code ibv_modify_qp(3)}
 * with {@link QpAttrMask#AV}). RoCE needs {@link #isGlobal()} with a GRH.
 */
public final class AhAttr {
    private final GlobalRoute grh = new GlobalRoute();
    private int dlid;
    private int sl;
    private int srcPathBits;
    private int staticRate;
    private boolean isGlobal;
    private int portNum = 1;

    /** The GRH fields (mutable in place). */
    public GlobalRoute grh() {
        return grh;
    }

    public int dlid() {
        return dlid;
    }

    public AhAttr dlid(int v) {
        dlid = v;
        return this;
    }

    public int sl() {
        return sl;
    }

    public AhAttr sl(int v) {
        sl = v;
        return this;
    }

    public int srcPathBits() {
        return srcPathBits;
    }

    public AhAttr srcPathBits(int v) {
        srcPathBits = v;
        return this;
    }

    public int staticRate() {
        return staticRate;
    }

    public AhAttr staticRate(int v) {
        staticRate = v;
        return this;
    }

    /** True when the GRH is used (required on RoCE). */
    public boolean isGlobal() {
        return isGlobal;
    }

    public AhAttr isGlobal(boolean v) {
        isGlobal = v;
        return this;
    }

    public int portNum() {
        return portNum;
    }

    public AhAttr portNum(int v) {
        portNum = v;
        return this;
    }

    public AhAttr copyFrom(AhAttr o) {
        grh.copyFrom(o.grh);
        dlid = o.dlid;
        sl = o.sl;
        srcPathBits = o.srcPathBits;
        staticRate = o.staticRate;
        isGlobal = o.isGlobal;
        portNum = o.portNum;
        return this;
    }
}
