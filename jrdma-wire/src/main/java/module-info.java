/**
 * Wire codecs and capture files, with no provider and no device: the RoCE v2 wire format
 * ({@code org.jrdma.rocev2.wire}: header flyweights, the opcode table, the ICRC, packet
 * validation) and packet captures ({@code org.jrdma.rocev2.pcap}: pcap/pcapng reader, pcap writer,
 * the RoCE v2 capture check behind {@code jrdma pcap-check}). The software RoCE v2 provider
 * ({@code org.jrdma.rocev2}) builds on it; offline tools use it alone. Needs nothing but
 * {@code java.base}.
 */
module org.jrdma.wire {
    exports org.jrdma.rocev2.wire;
    exports org.jrdma.rocev2.pcap;
}
