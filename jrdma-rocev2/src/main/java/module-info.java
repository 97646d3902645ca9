/**
 * Software RoCE v2 (IBTA Vol 1 and Annex A17): the wire codecs, the RC/UC/UD transport and UDP I/O
 * through libc sockets via FFM. Wire-compatible with Linux rdma_rxe.
 */
module org.jrdma.rocev2 {
    requires transitive org.jrdma.soft;
    requires org.agrona;
    requires org.slf4j;
    exports org.jrdma.rocev2.wire;
    exports org.jrdma.rocev2.pcap;
    exports org.jrdma.rocev2.stats;
}
