package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Checks the DDP and RDMAP headers of one ULPDU (RFC 5041 §4, RFC 5040 §4, §5.1), in siw's order
 * ({@code siw_get_hdr}: DDP version, RDMAP version, opcode) and then the checks siw leaves to its
 * per-opcode receive functions: the T bit against the opcode, the header fitting in the ULPDU, the untagged
 * queue number, no payload after a Read Request. STags, MSNs, MOs and bounds are the provider's (they need
 * the QP's state). Reads only; allocates nothing; stateless (thread-safe).
 */
public final class FpduValidator {
    private FpduValidator() {
    }

    /**
     * Validates the ULPDU at {@code seg[ulpduOffset, ulpduOffset + ulpduLength)}.
     *
     * @return {@link FpduDropReason#OK} or the first problem found: {@link FpduDropReason#ULPDU_TOO_SHORT},
     *         {@link FpduDropReason#BAD_DDP_VERSION}, {@link FpduDropReason#BAD_RDMAP_VERSION},
     *         {@link FpduDropReason#BAD_OPCODE}, {@link FpduDropReason#TAGGED_MISMATCH},
     *         {@link FpduDropReason#BAD_QN}, {@link FpduDropReason#UNEXPECTED_PAYLOAD}
     * @throws IndexOutOfBoundsException if the range is outside {@code seg}
     */
    public static int check(MemorySegment seg, long ulpduOffset, int ulpduLength) {
        if (ulpduLength < 2) {
            return FpduDropReason.ULPDU_TOO_SHORT;
        }
        int b0 = Be.u8(seg, ulpduOffset);
        int b1 = Be.u8(seg, ulpduOffset + 1);
        if ((b0 & 0x3) != DdpHeader.DDP_VERSION) {
            return FpduDropReason.BAD_DDP_VERSION;
        }
        if ((b1 >>> 6) != RdmapOpcode.RDMAP_VERSION) {
            return FpduDropReason.BAD_RDMAP_VERSION;
        }
        int op = b1 & 0xf;
        if (!RdmapOpcode.isValid(op)) {
            return FpduDropReason.BAD_OPCODE;
        }
        boolean tagged = (b0 & DdpHeader.FLAG_TAGGED) != 0;
        if (tagged != RdmapOpcode.isTagged(op)) {
            return FpduDropReason.TAGGED_MISMATCH;
        }
        int header = RdmapOpcode.headerLength(op);
        if (ulpduLength < header) {
            return FpduDropReason.ULPDU_TOO_SHORT;
        }
        if (!tagged && Be.i32(seg, ulpduOffset + 6) != RdmapOpcode.queueNumber(op)) {
            return FpduDropReason.BAD_QN;
        }
        if (op == RdmapOpcode.RDMA_READ_REQUEST && ulpduLength != header) {
            return FpduDropReason.UNEXPECTED_PAYLOAD;
        }
        return FpduDropReason.OK;
    }
}
