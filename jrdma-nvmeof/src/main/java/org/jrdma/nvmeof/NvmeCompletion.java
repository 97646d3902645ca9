package org.jrdma.nvmeof;

/**
 * What a successful command's response capsule said (NVMe Base 2.0 §4.2.1): DW0 and DW1 as one value
 * (the command specific result: a Connect's CNTLID, a Property Get's value, a Set Features' grant) and
 * the submission queue head pointer.
 *
 * @param result {@code DW0 | DW1 << 32}
 * @param sqHead SQHD
 */
public record NvmeCompletion(long result, int sqHead) {
    /** DW0. */
    public int dw0() {
        return (int) result;
    }
}
