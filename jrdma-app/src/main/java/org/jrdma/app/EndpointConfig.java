package org.jrdma.app;

import java.time.Duration;
import org.jrdma.pool.PoolConfig;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The settings of an {@link EndpointGroup} and its endpoints. Setters return {@code this}; the group
 * copies the configuration when it is created.
 */
public final class EndpointConfig {
    private int sendDepth = 64;
    private int recvDepth = 32;
    private int recvBufferSize = 4096;
    private Duration timeout = Duration.ofSeconds(5);
    private boolean progressThread = true;
    private int rdAtomic = 8;
    private int retryCount = 7;
    private int rnrRetryCount = 7;
    private PoolConfig pool = new PoolConfig();

    /** Work requests (SEND, WRITE, READ, atomics) an endpoint has outstanding at most; 1 to 4096, default 64. */
    public EndpointConfig sendDepth(int n) {
        this.sendDepth = range("sendDepth", n, 1, 4096);
        return this;
    }

    public int sendDepth() {
        return sendDepth;
    }

    /** Receive buffers an endpoint keeps posted (leased from the pool); 1 to 4096, default 32. */
    public EndpointConfig recvDepth(int n) {
        this.recvDepth = range("recvDepth", n, 1, 4096);
        return this;
    }

    public int recvDepth() {
        return recvDepth;
    }

    /**
     * Bytes of each posted receive buffer: the largest message a peer may SEND (a longer one fails
     * both sides' work requests, LOC_LEN_ERR here, REM_INV_REQ_ERR there). 1 to the pool's largest
     * size class; default 4096.
     */
    public EndpointConfig recvBufferSize(int bytes) {
        this.recvBufferSize = range("recvBufferSize", bytes, 1, 1 << 30);
        return this;
    }

    public int recvBufferSize() {
        return recvBufferSize;
    }

    /**
     * The bound on each blocking step (address and route resolution, connect, accept) and on each
     * work request from its post to its completion; a work request outstanding longer fails with
     * {@link java.util.concurrent.TimeoutException} and breaks the endpoint. Default 5 s; at least 1 ms.
     */
    public EndpointConfig timeout(Duration d) {
        if (d.toMillis() < 1) {
            throw new VerbsException(Errno.EINVAL, "EndpointConfig: timeout " + d + " < 1 ms");
        }
        this.timeout = d;
        return this;
    }

    public Duration timeout() {
        return timeout;
    }

    /**
     * Whether the group runs a progress thread ({@code jrdma-app-progress}, a daemon) that polls every
     * endpoint and completes their futures (default true). False: the application calls
     * {@link EndpointGroup#progress()} or {@link Endpoint#progress()} itself; nothing completes,
     * times out or notices a lost peer without those calls.
     */
    public EndpointConfig progressThread(boolean on) {
        this.progressThread = on;
        return this;
    }

    public boolean progressThread() {
        return progressThread;
    }

    /**
     * RDMA READs and atomics outstanding per direction (the connection's initiator depth and responder
     * resources, {@code max_rd_atomic} / {@code max_dest_rd_atomic}); 1 to 128, default 8.
     */
    public EndpointConfig rdAtomic(int n) {
        this.rdAtomic = range("rdAtomic", n, 1, 128);
        return this;
    }

    public int rdAtomic() {
        return rdAtomic;
    }

    /** The QP's {@code retry_cnt} (0 to 7, default 7: seven retransmissions before RETRY_EXC_ERR). */
    public EndpointConfig retryCount(int n) {
        this.retryCount = range("retryCount", n, 0, 7);
        return this;
    }

    public int retryCount() {
        return retryCount;
    }

    /** The QP's {@code rnr_retry} (0 to 7, default 7 = retry without limit). */
    public EndpointConfig rnrRetryCount(int n) {
        this.rnrRetryCount = range("rnrRetryCount", n, 0, 7);
        return this;
    }

    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /** The shape of the pool the group makes per device (default {@code new PoolConfig()}). */
    public EndpointConfig pool(PoolConfig config) {
        this.pool = config;
        return this;
    }

    public PoolConfig pool() {
        return pool;
    }

    EndpointConfig copy() {
        EndpointConfig c = new EndpointConfig();
        c.sendDepth = sendDepth;
        c.recvDepth = recvDepth;
        c.recvBufferSize = recvBufferSize;
        c.timeout = timeout;
        c.progressThread = progressThread;
        c.rdAtomic = rdAtomic;
        c.retryCount = retryCount;
        c.rnrRetryCount = rnrRetryCount;
        c.pool = pool;
        return c;
    }

    private static int range(String name, int v, int lo, int hi) {
        if (v < lo || v > hi) {
            throw new VerbsException(Errno.EINVAL, "EndpointConfig: " + name + " " + v + " not in [" + lo + ", " + hi + "]");
        }
        return v;
    }
}
