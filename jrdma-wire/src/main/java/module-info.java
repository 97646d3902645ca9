/**
 * Wire codecs and capture files, with no provider and no device: the RoCE v2 wire format
 * ({@code org.jrdma.rocev2.wire}: header flyweights, the opcode table, the ICRC, packet
 * validation), packet captures ({@code org.jrdma.rocev2.pcap}: pcap/pcapng reader, pcap writer,
 * the RoCE v2 capture check behind {@code jrdma pcap-check}) and management datagrams
 * ({@code org.jrdma.mad}: the MAD header, the IB CM messages, rdma_cm's IP header), the iWARP wire
 * format ({@code org.jrdma.iwarp.wire}: MPA frames and FPDU framing, DDP and RDMAP headers, Terminate
 * codes) and iWARP capture decoding ({@code org.jrdma.iwarp.pcap}: TCP stream reassembly). The software
 * RoCE v2 provider ({@code org.jrdma.rocev2}) and the connection manager build on it; offline tools
 * use it alone. Needs nothing but {@code java.base}.
 */
module org.jrdma.wire {
    exports org.jrdma.rocev2.wire;
    exports org.jrdma.rocev2.pcap;
    exports org.jrdma.mad;
    exports org.jrdma.iwarp.wire;
    exports org.jrdma.iwarp.pcap;
}
