package org.jrdma.app;

import java.util.Objects;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.WcOpcode;

/**
 * A message handed to an {@link EndpointReceiveHandler}: a flyweight over the receive buffer it
 * arrived in, which stays the endpoint's (the application never closes it).
 *
 * <p><b>Validity.</b> A view is valid from the call of
 * {@link EndpointReceiveHandler#received(ReceivedView, Object)} until that call returns; after
 * {@link #retain()} (in the handler) until {@link #release()} (any thread, once). Then the buffer is
 * posted again for a later message. Every accessor of a view that is no longer valid throws
 * {@link IllegalStateException}; after {@link Endpoint#close()} the buffer has gone back to the pool
 * and the accessors of a retained view throw as well (never reading memory now lent to someone else).
 * The endpoint reuses the object for a later message in the same buffer: a reference kept past its
 * validity may then see that message, so keep none. A retained view holds one of the endpoint's
 * {@link EndpointConfig#recvDepth()} receive buffers out of the receive queue until released (on
 * RoCE a SEND that finds no posted buffer is answered with RNR and retried; on iWARP it breaks the
 * connection, so a protocol's credits must count retained views).
 *
 * <p><b>Contents.</b> For a SEND (opcode RECV) the first {@link #byteLen()} bytes of the buffer are
 * the message; for the notification of an RDMA WRITE with immediate data (RECV_RDMA_WITH_IMM) the
 * bytes went to the memory the peer wrote, {@link #byteLen()} is the WRITE's length and
 * {@link #length()} is 0. Offsets are in bytes, in {@code [0, length()]}; a range outside that throws
 * {@link IndexOutOfBoundsException}. Multi-byte values are read in the platform's byte order, as
 * {@link Lease}'s.
 *
 * <p>Threads: a view is meant for the handler's thread (or, retained, one thread at a time); it is
 * not locked.
 */
public final class ReceivedView {
    private final Endpoint endpoint;
    /** The endpoint's receive slot, or -1 for a message that had arrived before any receive asked for it. */
    final int slot;
    private Lease lease;
    private int byteLen;
    private WcOpcode opcode;
    private boolean hasImm;
    private int immData;
    private volatile boolean valid;
    private boolean retained;

    ReceivedView(Endpoint endpoint, int slot) {
        this.endpoint = endpoint;
        this.slot = slot;
    }

    /** Makes the view valid for a message in {@code lease} (under the endpoint's lock). */
    void open(Lease lease, int byteLen, WcOpcode opcode, boolean hasImm, int immData) {
        this.lease = lease;
        this.byteLen = byteLen;
        this.opcode = opcode;
        this.hasImm = hasImm;
        this.immData = immData;
        this.retained = false;
        this.valid = true;
    }

    /** The handler returned: true when the view is no longer valid (not retained), so its buffer is the endpoint's again. */
    boolean handlerReturned() {
        if (retained) {
            return false;
        }
        valid = false;
        return true;
    }

    Lease lease() {
        return lease;
    }

    /** Bytes received ({@code ibv_wc.byte_len}). */
    public int byteLen() {
        checkValid();
        return byteLen;
    }

    /** RECV (a SEND) or RECV_RDMA_WITH_IMM (a WRITE with immediate data). */
    public WcOpcode opcode() {
        checkValid();
        return opcode;
    }

    /** Whether immediate data came ({@code IBV_WC_WITH_IMM}). */
    public boolean hasImm() {
        checkValid();
        return hasImm;
    }

    /** The immediate data in host order, as libibverbs' {@code ntohl(wc.imm_data)}; 0 without. */
    public int immData() {
        checkValid();
        return immData;
    }

    /** Bytes of the message in the buffer: {@link #byteLen()} for a SEND, 0 for a WRITE's notification. */
    public int length() {
        checkValid();
        return opcode == WcOpcode.RECV ? byteLen : 0;
    }

    /** Copies {@code len} bytes of the message from {@code offset} into {@code dst} from {@code dstOff}. */
    public void getBytes(int offset, byte[] dst, int dstOff, int len) {
        Objects.checkFromIndexSize(offset, len, length());
        lease.getBytes(offset, dst, dstOff, len);
    }

    /** The message's bytes, as a new array (allocates; {@link #getBytes(int, byte[], int, int)} does not). */
    public byte[] bytes() {
        byte[] b = new byte[length()];
        lease.getBytes(0, b, 0, b.length);
        return b;
    }

    /** The 32-bit value at {@code offset} (platform order). */
    public int getInt(int offset) {
        Objects.checkFromIndexSize(offset, 4, length());
        return lease.getInt(offset);
    }

    /** The 64-bit value at {@code offset} (platform order). */
    public long getLong(int offset) {
        Objects.checkFromIndexSize(offset, 8, length());
        return lease.getLong(offset);
    }

    /**
     * Keeps the view valid after the handler returns, until {@link #release()}; its buffer stays out of
     * the receive queue meanwhile. Call it in the handler.
     *
     * @return this
     * @throws IllegalStateException when the view is no longer valid
     */
    public ReceivedView retain() {
        checkValid();
        retained = true;
        return this;
    }

    /**
     * Ends a retained view: it is no longer valid, and its buffer is posted again (or, after the
     * endpoint closed or broke, stays with the endpoint, which returns it to the pool when it closes).
     * Once per {@link #retain()}; any thread.
     *
     * @throws IllegalStateException when the view was not retained or was released already
     */
    public void release() {
        if (!retained) {
            throw new IllegalStateException("ReceivedView.release: the view is not retained (or was released already)");
        }
        retained = false;
        if (valid) {
            valid = false;
            endpoint.released(this);
        }                                   // else the endpoint closed and took its buffer back
    }

    /** The endpoint closed: its buffer went back to the pool (under the endpoint's lock). */
    void endpointClosed() {
        valid = false;
    }

    private void checkValid() {
        if (!valid) {
            throw new IllegalStateException("ReceivedView: no longer valid (its handler returned without retain(), or it was released)");
        }
    }

    @Override
    public String toString() {
        return valid ? "ReceivedView[" + opcode + ", " + byteLen + " B" + (hasImm ? ", imm " + immData : "") + (retained ? ", retained" : "") + "]"
                : "ReceivedView[not valid]";
    }
}
