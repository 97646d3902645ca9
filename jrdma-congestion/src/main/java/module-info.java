/**
 * DCQCN congestion control (Zhu et al., SIGCOMM 2015, and NVIDIA's firmware variant) as plain state
 * machines with no clock, no threads and no allocation after construction: the caller passes the
 * time in nanoseconds. The RoCE v2 transport drives it with its own clock, the fabric simulator
 * ({@code org.jrdma.fabric}) with its virtual clock; neither depends on the other. Needs nothing but
 * {@code java.base}.
 */
module org.jrdma.congestion {
    exports org.jrdma.congestion;
}
