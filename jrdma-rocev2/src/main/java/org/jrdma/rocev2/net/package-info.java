/**
 * UDP and raw IPv4 socket I/O for RoCE v2 over libc through the FFM API ({@code java.lang.foreign}):
 * {@link org.jrdma.rocev2.net.UdpSocket} (with UDP GSO/GRO and sendmmsg/recvmmsg batches),
 * {@link org.jrdma.rocev2.net.SockAddr} (a reusable native socket address) and
 * {@link org.jrdma.rocev2.net.RawIpv4Socket} (own IPv4 header, for the IP Identification that the
 * IPv4 ICRC covers). Linux x86-64 only; the module needs {@code --enable-native-access}.
 */
package org.jrdma.rocev2.net;
