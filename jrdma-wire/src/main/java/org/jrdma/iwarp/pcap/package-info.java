/**
 * iWARP in packet captures: {@link org.jrdma.iwarp.pcap.TcpReassembler} rebuilds each direction of the TCP
 * connections of a capture (read with {@link org.jrdma.rocev2.pcap.PcapReader}) by sequence number, so that
 * the MPA frames and FPDUs of iWARP streams can be cut out with {@link org.jrdma.iwarp.wire.FpduDeframer}.
 * {@link org.jrdma.iwarp.pcap.MpaStreamCheck} is the iWARP half of {@code jrdma pcap-check}.
 * {@link org.jrdma.iwarp.pcap.TcpPcapWriter} writes the other way: TCP segments with synthesized Ethernet,
 * IP and TCP headers (sequence numbers per direction, valid checksums), for a provider's capture of the MPA
 * stream it sends and receives through a kernel socket; tshark 4.0 dissects such files as MPA/DDP/RDMAP
 * and validates their MPA CRCs and TCP checksums. The reassembler and checker allocate per segment (offline
 * tools); the writer does not.
 */
package org.jrdma.iwarp.pcap;
