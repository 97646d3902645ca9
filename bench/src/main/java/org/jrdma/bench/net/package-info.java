/**
 * Benchmarks of jrdma's UDP I/O ({@code org.jrdma.rocev2.net}): datagrams per second on loopback
 * for one datagram per call, sendmmsg/recvmmsg and UDP GSO/GRO. Plain {@code main} programs.
 */
package org.jrdma.bench.net;
