package org.jrdma.nvmeof;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * How to reach and set up a controller, as {@code nvme connect -t rdma} takes it (nvme-cli's
 * {@code -a}/{@code -s}/{@code -n}/{@code --hostnqn}/{@code --hostid}/{@code -i}/{@code -Q}/{@code -k}).
 * Mutable builder; {@link NvmeController#connect} copies what it needs.
 */
public final class NvmeConnectOptions {
    /** The well-known NQN of a discovery controller (NVMe-oF 1.1 §5). */
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";
    /** The NVMe/RDMA port, 4420 (IANA "nvme-rdma"). */
    public static final int DEFAULT_PORT = 4420;

    private InetSocketAddress target;
    private InetSocketAddress source;
    private String subsysNqn;
    private UUID hostId = UUID.randomUUID();
    private String hostNqn;
    private int ioQueues = 2;
    private int queueSize = 128;
    private int keepAliveTimeoutMs = 5000;
    private Duration commandTimeout = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(60);
    private boolean inCapsuleData = true;

    /** The target's address and port ({@code -a}, {@code -s}). */
    public NvmeConnectOptions target(InetSocketAddress v) {
        this.target = Objects.requireNonNull(v);
        return this;
    }

    public InetSocketAddress target() {
        return target;
    }

    /** The local address to connect from (a jrdma device's), null: the routing's choice. */
    public NvmeConnectOptions source(InetSocketAddress v) {
        this.source = v;
        return this;
    }

    public InetSocketAddress source() {
        return source;
    }

    /** The subsystem NQN ({@code -n}); {@link #DISCOVERY_NQN} for a discovery controller. */
    public NvmeConnectOptions subsysNqn(String v) {
        this.subsysNqn = Objects.requireNonNull(v);
        return this;
    }

    public String subsysNqn() {
        return subsysNqn;
    }

    /** The host identifier ({@code --hostid}); default a random UUID per options object. */
    public NvmeConnectOptions hostId(UUID v) {
        this.hostId = Objects.requireNonNull(v);
        return this;
    }

    public UUID hostId() {
        return hostId;
    }

    /** The host NQN ({@code --hostnqn}); default {@code nqn.2014-08.org.nvmexpress:uuid:<host ID>} (NVMe Base 2.0 §4.5). */
    public NvmeConnectOptions hostNqn(String v) {
        this.hostNqn = v;
        return this;
    }

    public String hostNqn() {
        return hostNqn != null ? hostNqn : "nqn.2014-08.org.nvmexpress:uuid:" + hostId;
    }

    /** I/O queues to ask for ({@code -i}), 1..65535, default 2; the controller may grant fewer. */
    public NvmeConnectOptions ioQueues(int v) {
        if (v < 1 || v > 65535) {
            throw new IllegalArgumentException("ioQueues " + v + " not in 1..65535");
        }
        this.ioQueues = v;
        return this;
    }

    public int ioQueues() {
        return ioQueues;
    }

    /** Entries of each I/O queue ({@code -Q}), 2..1024, default 128 (Linux's); at most CAP.MQES + 1. */
    public NvmeConnectOptions queueSize(int v) {
        if (v < 2 || v > 1024) {
            throw new IllegalArgumentException("queueSize " + v + " not in 2..1024");
        }
        this.queueSize = v;
        return this;
    }

    public int queueSize() {
        return queueSize;
    }

    /** Keep alive timeout in ms ({@code -k} in seconds there), default 5000 (Linux's NVME_DEFAULT_KATO); 0 none. */
    public NvmeConnectOptions keepAliveTimeoutMs(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("keepAliveTimeoutMs " + v + " < 0");
        }
        this.keepAliveTimeoutMs = v;
        return this;
    }

    public int keepAliveTimeoutMs() {
        return keepAliveTimeoutMs;
    }

    /** How long a command may take before its queue is torn down (default 30 s, Linux's io_timeout). */
    public NvmeConnectOptions commandTimeout(Duration v) {
        this.commandTimeout = Objects.requireNonNull(v);
        return this;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Whether small writes carry their data in the command capsule when the controller allows it (default true). */
    public NvmeConnectOptions inCapsuleData(boolean v) {
        this.inCapsuleData = v;
        return this;
    }

    public boolean inCapsuleData() {
        return inCapsuleData;
    }

    /** How long address/route resolution and each queue's connect may take (default 60 s). */
    public NvmeConnectOptions connectTimeout(Duration v) {
        this.connectTimeout = Objects.requireNonNull(v);
        return this;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }
}
