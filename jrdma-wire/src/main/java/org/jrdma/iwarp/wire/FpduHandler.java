package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;

/**
 * What {@link FpduDeframer#process} delivers, on the thread that calls it (the provider's I/O thread), with
 * whatever locks that caller holds. The bytes passed are valid only during the call (the deframer reuses its
 * buffer afterwards). A handler may call {@link FpduDeframer#stop()} (e.g. after sending a Terminate) and,
 * from {@link #onMpaFrame}, {@link FpduDeframer#crcEnabled(boolean)} to apply the negotiated CRC to the
 * FPDUs that follow in the same read. A handler should not throw; an exception propagates out of
 * {@code process} with the deframer positioned after the frame being delivered.
 */
public interface FpduHandler {
    /**
     * A complete FPDU passed the CRC (when enabled) and {@link FpduValidator}: its ULPDU (DDP header first,
     * wrap a {@link DdpHeader} at {@code ulpduOffset}) is {@code seg[ulpduOffset, ulpduOffset + ulpduLength)}.
     */
    void onFpdu(MemorySegment seg, long ulpduOffset, int ulpduLength);

    /**
     * The MPA Request or Reply the deframer was told to expect ({@link FpduDeframer#expectMpaRequest},
     * {@link FpduDeframer#expectMpaReply}) arrived complete and passed {@link MpaFrame#validate}. The
     * flyweight (and its private data) is valid during the call. Default: nothing.
     */
    default void onMpaFrame(MpaFrame frame) {
    }

    /**
     * A frame was dropped for {@code reason} ({@link FpduDropReason}); {@code seg[offset, offset + length)}
     * holds its bytes received so far: the ULPDU of a dropped FPDU (for a Terminate's copied header), or the
     * MPA frame's header. Default: nothing (the deframer counts it anyway).
     */
    default void onDrop(int reason, MemorySegment seg, long offset, int length) {
    }
}
