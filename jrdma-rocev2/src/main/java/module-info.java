/**
 * Software RoCE v2 (IBTA Vol 1 and Annex A17): the RC/UC/UD transport and UDP I/O through libc
 * sockets via FFM, over the wire codecs of {@code org.jrdma.wire}. Wire-compatible with Linux
 * rdma_rxe. DCQCN (ECN marks answered with CNPs, each QP's rate limited on CNPs) comes from
 * {@code org.jrdma.congestion}, which the fabric simulator shares. Applications and tools reach it only through the verbs API ({@code org.jrdma.verbs},
 * its counters through {@code Context.extension}); it exports its provider package alone.
 */
module org.jrdma.rocev2 {
    requires transitive org.jrdma.soft;
    requires org.jrdma.wire;
    requires org.jrdma.congestion;
    requires org.agrona;
    requires org.slf4j;
    exports org.jrdma.rocev2;
    provides org.jrdma.verbs.spi.Provider with org.jrdma.rocev2.RxeProvider;
}
