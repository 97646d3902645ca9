package org.jrdma.fabric.scenario;

/**
 * InfiniBand link-level flow control on every link (IBA Vol. 1 §7.9; FABRIC-REFERENCE.md §5):
 * each receiving port has a buffer of {@code vlBufferBytes} per VL, counted in 64-byte blocks; the
 * sender keeps FCTBS (blocks sent, mod 4096) per VL and may start a packet only if FCCL − FCTBS
 * (mod 4096) covers its blocks; the receiver returns FCCL = ABR + free blocks (at most 2048
 * ahead) in a flow-control packet when it frees blocks, no more often than
 * {@code creditUpdatePs} (ib_flit_sim's {@code credMinTime} 0.256 µs). No PFC, no drop.
 *
 * @param vlBufferBytes  receive buffer per VL and port (a multiple of 64 B)
 * @param creditUpdatePs the least time between two credit updates of one VL
 */
public record IbSpec(long vlBufferBytes, long creditUpdatePs) {
    /** Bytes per flow-control block. */
    public static final int BLOCK = 64;
}
