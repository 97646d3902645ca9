/**
 * RoCE v2 wire format (IBTA Vol 1 chapter 9, Annex A17): {@link org.jrdma.rocev2.wire.PacketBuffer}
 * (pooled direct buffer + MemorySegment), header flyweights named after the spec
 * ({@link org.jrdma.rocev2.wire.Bth}, {@link org.jrdma.rocev2.wire.Reth},
 * {@link org.jrdma.rocev2.wire.Aeth}, {@link org.jrdma.rocev2.wire.AtomicEth},
 * {@link org.jrdma.rocev2.wire.AtomicAckEth}, {@link org.jrdma.rocev2.wire.ImmDt},
 * {@link org.jrdma.rocev2.wire.Ieth}, {@link org.jrdma.rocev2.wire.Deth}; the MAD header is {@link org.jrdma.mad.MadHeader}),
 * the opcode table as data ({@link org.jrdma.rocev2.wire.Opcode}) and the ICRC
 * ({@link org.jrdma.rocev2.wire.Icrc}). Nothing here allocates per packet.
 */
package org.jrdma.rocev2.wire;
