package org.jrdma.rocev2.wire;

/** RoCE v2 constants (IBTA Vol 1 Annex A17). */
public final class RoceV2 {
    /** The IANA UDP destination port of RoCE v2 (Annex A17.2.1). */
    public static final int UDP_PORT = 4791;

    private RoceV2() {
    }
}
