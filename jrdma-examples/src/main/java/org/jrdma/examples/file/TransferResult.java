package org.jrdma.examples.file;

import java.util.HexFormat;

/**
 * What one side saw of a completed, verified transfer.
 *
 * @param bytes the file's length in bytes (0 or more)
 * @param chunks the chunks it was carried in ({@code ceil(bytes / chunkSize)}; 0 for an empty file)
 * @param sha256 the SHA-256 of the whole file (32 bytes), equal on both sides
 * @param transport "rdma-imm" (WRITE_WITH_IMM notifications), "rdma-send" (WRITE then a SEND with the
 *        chunk index, as on iWARP) or "tcp"
 */
public record TransferResult(long bytes, long chunks, byte[] sha256, String transport) {
    /** The SHA-256 in lower-case hex. */
    public String sha256Hex() {
        return HexFormat.of().formatHex(sha256);
    }
}
