package org.jrdma.nvmeof.target;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an {@link NvmeTarget} exports and how: the address it listens on, one NVM subsystem (its NQN
 * and RAM namespaces), the queues it grants and the in-capsule data it takes. Mutable builder;
 * {@link NvmeTarget#start} copies it. The defaults are those of Linux's {@code nvmet-rdma} where it
 * has one (MQES 127, in-capsule data of one page, MDTS 8).
 */
public final class NvmeTargetOptions {
    /** The NVMe/RDMA port, 4420. */
    public static final int DEFAULT_PORT = 4420;
    /** The largest in-capsule data the target takes (Linux's {@code NVMET_RDMA_MAX_INLINE_DATA_SIZE}, 16 KiB). */
    public static final int MAX_IN_CAPSULE_DATA = 16 << 10;

    private InetSocketAddress address;
    private String subsysNqn = "nqn.2026-01.org.jrdma:target";
    private final List<Long> namespaces = new ArrayList<>();
    private int blockSize = 512;
    private int inCapsuleDataSize = 4096;
    private int maxQueueSize = 128;
    private int maxIoQueues = 8;
    private String serial;

    /** The address and port to listen on (a jrdma device's address; port 0: any). Required. */
    public NvmeTargetOptions address(InetSocketAddress v) {
        this.address = Objects.requireNonNull(v);
        return this;
    }

    public InetSocketAddress address() {
        return address;
    }

    /** The NVM subsystem's NQN (at most 223 bytes); default {@code nqn.2026-01.org.jrdma:target}. */
    public NvmeTargetOptions subsysNqn(String v) {
        if (v.length() > 223 || v.isEmpty()) {
            throw new IllegalArgumentException("subsystem NQN of " + v.length() + " bytes (1..223)");
        }
        this.subsysNqn = v;
        return this;
    }

    public String subsysNqn() {
        return subsysNqn;
    }

    /**
     * Adds a RAM namespace of {@code bytes} (a multiple of the block size, 1 block..2^40 bytes);
     * NSIDs are given in order from 1. Without any, one of 64 MiB.
     */
    public NvmeTargetOptions namespace(long bytes) {
        if (bytes <= 0 || bytes > 1L << 40) {
            throw new IllegalArgumentException("namespace of " + bytes + " bytes (1..2^40)");
        }
        namespaces.add(bytes);
        return this;
    }

    public List<Long> namespaces() {
        return namespaces.isEmpty() ? List.of(64L << 20) : List.copyOf(namespaces);
    }

    /** Bytes per logical block: 512 (default) or 4096. */
    public NvmeTargetOptions blockSize(int v) {
        if (v != 512 && v != 4096) {
            throw new IllegalArgumentException("block size " + v + " (512 or 4096)");
        }
        this.blockSize = v;
        return this;
    }

    public int blockSize() {
        return blockSize;
    }

    /**
     * In-capsule data an I/O queue's command capsule may carry after its SQE, 0..16 KiB in 16-byte
     * units (IOCCSZ = 4 + this / 16); default 4096 (Linux's {@code inline_data_size}, one page). The
     * admin queue's capsules are 64 bytes (NVMe-oF 1.1 §2.1).
     */
    public NvmeTargetOptions inCapsuleDataSize(int v) {
        if (v < 0 || v > MAX_IN_CAPSULE_DATA || v % 16 != 0) {
            throw new IllegalArgumentException("in-capsule data size " + v + " (0..16384, a multiple of 16)");
        }
        this.inCapsuleDataSize = v;
        return this;
    }

    public int inCapsuleDataSize() {
        return inCapsuleDataSize;
    }

    /** The largest queue, entries (CAP.MQES + 1), 2..1024; default 128. */
    public NvmeTargetOptions maxQueueSize(int v) {
        if (v < 2 || v > 1024) {
            throw new IllegalArgumentException("max queue size " + v + " (2..1024)");
        }
        this.maxQueueSize = v;
        return this;
    }

    public int maxQueueSize() {
        return maxQueueSize;
    }

    /** I/O queues a controller may have (granted by Set Features Number of Queues), 1..128; default 8. */
    public NvmeTargetOptions maxIoQueues(int v) {
        if (v < 1 || v > 128) {
            throw new IllegalArgumentException("max I/O queues " + v + " (1..128)");
        }
        this.maxIoQueues = v;
        return this;
    }

    public int maxIoQueues() {
        return maxIoQueues;
    }

    /** The serial number (at most 20 ASCII characters); default derived from the subsystem NQN. */
    public NvmeTargetOptions serial(String v) {
        if (v.length() > 20) {
            throw new IllegalArgumentException("serial '" + v + "' longer than 20 characters");
        }
        this.serial = v;
        return this;
    }

    public String serial() {
        return serial != null ? serial : String.format("%016x", subsysNqn.hashCode() * 0x9E3779B97F4A7C15L).substring(0, 16);
    }
}
