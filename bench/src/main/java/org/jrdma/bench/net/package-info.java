/**
 * Benchmarks of jrdma's UDP I/O ({@code org.jrdma.rocev2.net}): datagrams per second on loopback
 * for one datagram per call, sendmmsg/recvmmsg and UDP GSO/GRO ({@code UdpThroughput}), and the
 * plain-Java ceiling {@code bench/run} compares jrdma with ({@code UdpCeiling}: a DatagramChannel
 * blaster and busy-polling ping-pong). Plain {@code main} programs.
 */
package org.jrdma.bench.net;
