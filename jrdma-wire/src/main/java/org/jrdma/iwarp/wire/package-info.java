/**
 * The iWARP wire format, with no provider and no device: MPA framing over TCP (RFC 5044 with the enhanced
 * connection establishment of RFC 6581), DDP (RFC 5041) and RDMAP (RFC 5040), as Linux siw speaks them
 * ({@code drivers/infiniband/sw/siw/iwarp.h}, {@code siw_cm.c}, {@code siw_qp_rx.c}, {@code siw_qp_tx.c};
 * golden tests against the siw captures in {@code testdata/captures/siw-*.pcap}).
 *
 * <ul>
 * <li>MPA connection setup: {@link org.jrdma.iwarp.wire.MpaFrame} (Request/Reply/reject frame),
 *     {@link org.jrdma.iwarp.wire.MpaIrdOrd} (RFC 6581 IRD/ORD and peer-to-peer RTR bits),
 *     {@link org.jrdma.iwarp.wire.Mpa} (constants, FPDU arithmetic, private data limits).</li>
 * <li>FPDU framing: {@link org.jrdma.iwarp.wire.FpduFramer} (length, pad, CRC around a DDP segment),
 *     {@link org.jrdma.iwarp.wire.FpduDeframer} (MPA frame and FPDUs out of a TCP stream in arbitrary
 *     pieces, to an {@link org.jrdma.iwarp.wire.FpduHandler}), {@link org.jrdma.iwarp.wire.FpduCrc}
 *     (CRC32c), {@link org.jrdma.iwarp.wire.FpduValidator} and
 *     {@link org.jrdma.iwarp.wire.FpduDropReason}.</li>
 * <li>DDP and RDMAP headers: {@link org.jrdma.iwarp.wire.DdpHeader} (tagged and untagged, with the RDMAP
 *     control byte), {@link org.jrdma.iwarp.wire.RdmapOpcode}, {@link org.jrdma.iwarp.wire.ReadRequest},
 *     {@link org.jrdma.iwarp.wire.Terminate} and {@link org.jrdma.iwarp.wire.TerminateCodes}.</li>
 * </ul>
 *
 * <p>Flyweights wrap a {@link java.lang.foreign.MemorySegment} at an offset; getters read, setters write in
 * place and return the flyweight; all fields are big-endian except the MPA CRC (little-endian, as siw sends
 * it). Nothing allocates per FPDU. Flyweights, framer and deframer are not thread-safe: one per thread (the
 * provider's connection I/O thread).
 */
package org.jrdma.iwarp.wire;
