/**
 * iWARP in packet captures: {@link org.jrdma.iwarp.pcap.TcpReassembler} rebuilds each direction of the TCP
 * connections of a capture (read with {@link org.jrdma.rocev2.pcap.PcapReader}) by sequence number, so that
 * the MPA frames and FPDUs of iWARP streams can be cut out with {@link org.jrdma.iwarp.wire.FpduDeframer}.
 * For offline tools; allocates per segment.
 */
package org.jrdma.iwarp.pcap;
