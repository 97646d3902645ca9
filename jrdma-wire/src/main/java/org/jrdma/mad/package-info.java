/**
 * Management datagrams and the Communication Manager's wire format, with no provider and no device:
 * the MAD common header ({@link org.jrdma.mad.MadHeader}, IBTA Vol 1 §13.4.2), the CM messages of IBTA Vol 1
 * chapter 12 as flyweights over a 256-byte MAD ({@link org.jrdma.mad.CmReq}, {@link org.jrdma.mad.CmMra},
 * {@link org.jrdma.mad.CmRej}, {@link org.jrdma.mad.CmRep}, {@link org.jrdma.mad.CmRtu},
 * {@link org.jrdma.mad.CmDreq}, {@link org.jrdma.mad.CmDrep}, {@link org.jrdma.mad.CmSidrReq},
 * {@link org.jrdma.mad.CmSidrRep}, {@link org.jrdma.mad.CmLap}, {@link org.jrdma.mad.CmApr}), their constants
 * ({@link org.jrdma.mad.Cm}, {@link org.jrdma.mad.CmRejReason}) and rdma_cm's IP header in the REQ's private
 * data ({@link org.jrdma.mad.CmaHeader}, Annex A11).
 *
 * <p>Field offsets and widths are those of Linux's {@code include/rdma/ibta_vol1_c12.h} (the IBTA tables as
 * {@code IBA_FIELD*_LOC}), checked against every CM MAD Linux sent in the reference captures
 * ({@code testdata/captures/rxe-cm-*.pcap}). Every flyweight wraps the MAD at its first byte; getters read,
 * setters write in place and return the flyweight; no method allocates except the {@code byte[]} and
 * {@code InetAddress} accessors. Flyweights are not thread-safe; use one per thread.
 */
package org.jrdma.mad;
