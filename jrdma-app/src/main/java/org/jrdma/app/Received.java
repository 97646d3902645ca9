package org.jrdma.app;

import org.jrdma.pool.Lease;
import org.jrdma.verbs.WcOpcode;

/**
 * A message that arrived on an endpoint: a SEND (with or without immediate data) whose bytes are in
 * {@link #lease()}, or the notification of an RDMA WRITE with immediate data (its bytes went to the
 * memory the peer wrote; {@link #byteLen()} is the WRITE's length, the lease holds nothing of it).
 * The lease belongs to the application: close it (or this) to give the buffer back to the pool; the
 * endpoint posts a fresh buffer in its place as soon as it has taken this one.
 *
 * @param lease the receive buffer (capacity {@link EndpointConfig#recvBufferSize()} or more)
 * @param byteLen bytes received ({@code ibv_wc.byte_len})
 * @param opcode RECV or RECV_RDMA_WITH_IMM
 * @param hasImm whether immediate data came ({@code IBV_WC_WITH_IMM})
 * @param immData the immediate data, in host order as libibverbs' {@code ntohl(wc.imm_data)}; 0 without
 */
public record Received(Lease lease, int byteLen, WcOpcode opcode, boolean hasImm, int immData) implements AutoCloseable {
    /** The received bytes (a copy of the first {@link #byteLen()} bytes of the lease; SEND only). */
    public byte[] bytes() {
        return opcode == WcOpcode.RECV ? lease.getBytes(0, byteLen) : new byte[0];
    }

    /** Closes the lease. */
    @Override
    public void close() {
        lease.close();
    }
}
