package org.jrdma.iwarp.transport;

import org.jrdma.iwarp.wire.DdpHeader;
import org.jrdma.iwarp.wire.Mpa;

/**
 * Offsets from the start of an FPDU (its MPA ULPDU_Length field) that the transport places payload
 * at; the layouts themselves are {@code org.jrdma.iwarp.wire}'s ({@link DdpHeader}, {@link Mpa}).
 */
final class Iw {
    private Iw() {
    }

    /** Tagged FPDU: length field + tagged DDP/RDMAP header; the payload follows. */
    static final int TAGGED_HDR = Mpa.HEADER_LENGTH + DdpHeader.TAGGED_LENGTH;
    /** Untagged FPDU: length field + untagged DDP/RDMAP header; the payload (or Read Request / Terminate header) follows. */
    static final int UNTAGGED_HDR = Mpa.HEADER_LENGTH + DdpHeader.UNTAGGED_LENGTH;
}
