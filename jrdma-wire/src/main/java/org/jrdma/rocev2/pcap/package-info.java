/**
 * Packet captures: {@link org.jrdma.rocev2.pcap.PcapReader} (classic pcap and pcapng, Ethernet and Linux
 * cooked links) decodes frames down to the UDP payload, {@link org.jrdma.rocev2.pcap.PcapWriter} writes
 * RoCE v2 packets as classic pcap with synthesized Ethernet/IP/UDP headers, and
 * {@link org.jrdma.rocev2.pcap.PcapCheck} is {@code jrdma pcap-check}: it decodes every RoCE v2 packet
 * of a capture and checks its headers and ICRC.
 */
package org.jrdma.rocev2.pcap;
