/**
 * The software RoCE v2 provider, wire-compatible with Linux rdma_rxe: devices from
 * {@code JRDMA_DEVICES} ({@link org.jrdma.rocev2.DeviceConfig}), each binding UDP port 4791 on one
 * address ({@link org.jrdma.rocev2.RxeDevice}).
 *
 * <p>Layers: {@code wire} (headers as flyweights, the opcode table, ICRC, validation) and
 * {@code pcap} (capture files and {@code jrdma pcap-check}) in the provider-free module
 * {@code org.jrdma.wire}; here {@code net} (libc sockets through FFM), {@code transport} (requester,
 * responder, completer per QP; the device's I/O agent; packet ports: UDP, raw IPv4, fault shim,
 * capture tap), {@code stats} (counters with rxe's names). Only this package is exported: the
 * counters reach applications as {@code Context.extension(HardwareCounters.class)}.
 *
 * <p>Threads: a posting thread runs its QP's requester; the device's I/O thread
 * ({@code jrdma-NAME-io}) receives, runs responders and completers, sends coalesced ACKs at the end
 * of each receive burst and scans the retransmission and RNR timers every millisecond. Both hold the
 * QP's lock while touching the QP.
 *
 * <p>System properties: {@code jrdma.devices}, {@code jrdma.ipv4[.NAME]=auto|raw|udp},
 * {@code jrdma.pcap[.NAME]=FILE}, {@code jrdma.faults[.NAME]=loss=..,dup=..,reorder=..,corrupt=..,seed=..},
 * {@code jrdma.sourcePorts=rxe|bound}, {@code jrdma.spinMicros}.
 */
package org.jrdma.rocev2;
