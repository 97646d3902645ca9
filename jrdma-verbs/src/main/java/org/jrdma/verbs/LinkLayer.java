package org.jrdma.verbs;

/** Port link layer, {@code IBV_LINK_LAYER_*} ({@code ibv_query_port(3)}). */
public enum LinkLayer {
    INFINIBAND, ETHERNET
}
