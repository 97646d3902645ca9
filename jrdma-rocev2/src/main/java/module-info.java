/**
 * Software RoCE v2 (IBTA Vol 1 and Annex A17): the wire codecs, the RC/UC transport and UDP I/O
 * through libc sockets via FFM. Wire-compatible with Linux rdma_rxe.
 */
module org.jrdma.rocev2 {
    requires transitive org.jrdma.soft;
    requires org.agrona;
    requires org.slf4j;
    exports org.jrdma.rocev2;
    exports org.jrdma.rocev2.wire;
    exports org.jrdma.rocev2.net;
    exports org.jrdma.rocev2.pcap;
    exports org.jrdma.rocev2.stats;
    exports org.jrdma.rocev2.transport;
    provides org.jrdma.verbs.spi.Provider with org.jrdma.rocev2.RxeProvider;
}
