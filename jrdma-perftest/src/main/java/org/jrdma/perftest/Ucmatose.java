package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma ucmatose}: rdmacm-utils' {@code ucmatose} (rdma-core 44 {@code librdmacm/examples/cmatose.c})
 * over jrdma's CM, peer-compatible with it. Without {@code -s} it is the server: it listens
 * (backlog 0, i.e. the default) on {@code -b} or the wildcard, port 7471, accepts {@code -c}
 * connections (each: RC QP, send and receive CQ of {@code -C} entries, {@code -C} receives of
 * {@code -S} bytes posted before {@code rdma_accept} with the request's parameters), then SENDs
 * {@code -C} messages of {@code -S} bytes on each, waits for their completions and for the client's
 * as many replies, disconnects and waits for every DISCONNECTED. With {@code -s ADDRESS} it is the
 * client: per connection an ID resolved through {@code -b} (if given), the same QP set-up, receives
 * posted, {@code rdma_connect} (responder resources and initiator depth 1, retry count 5, RNR retry
 * 0); it waits for the server's messages, SENDs as many replies, and waits for the server's
 * disconnect. The messages' contents are not set or checked (cmatose's are uninitialised memory).
 * Options {@code -s -b -f -P -c -C -S -t -p} as cmatose; output lines and exit status (the
 * {@code return status}: 0, or the failing event's status, e.g. the REJ reason) as cmatose.
 *
 * <p>{@code -d} (a jrdma addition) prints {@code cmatose: listening on ADDR port N} once the server
 * listens. Not offered, refused with a message: {@code -m} (rdma_migrate_id, which org.jrdma.cm lacks),
 * {@code -a} (the ACK timeout option), {@code -P ib} and {@code -f gid} (AF_IB). jrdma also bounds
 * each wait for completions (60 s, then status -ETIMEDOUT) where cmatose polls for ever, and counts
 * a completion with an error status as a failure (cmatose counts it as done).
 *
 * <p>Threads: one, as cmatose: the main thread takes the CM events and polls the CQs.
 */
@Command(name = "ucmatose", sortOptions = false, usageHelpAutoWidth = true,
        description = "RDMA CM connection and simple SEND test, compatible with rdmacm-utils' ucmatose "
                + "(server without -s, client with -s SERVER).")
public final class Ucmatose implements Callable<Integer> {
    /** How long one phase's completions may take before the tool gives up. */
    static final Duration POLL_LIMIT = Duration.ofSeconds(60);

    @Spec
    CommandSpec spec;

    @Option(names = "-s", paramLabel = "server_address", description = "connect to this server (client mode)")
    String dstAddr;
    @Option(names = "-b", paramLabel = "bind_address", description = "local address to bind to")
    String srcAddr;
    @Option(names = "-f", paramLabel = "address_format", description = "name, ip or ipv6 (gid is not offered)")
    String format;
    @Option(names = "-P", paramLabel = "port_space", description = "tcp (ib is not offered)")
    String portSpace;
    @Option(names = "-c", paramLabel = "connections", description = "connections (default 1)")
    int connections = 1;
    @Option(names = "-C", paramLabel = "message_count", description = "messages each way per connection (default 10)")
    int messageCount = 10;
    @Option(names = "-S", paramLabel = "message_size", description = "bytes per message (default 100)")
    int messageSize = 100;
    @Option(names = "-t", paramLabel = "type_of_service", description = "type of service (traffic class)")
    String tos;
    @Option(names = "-p", paramLabel = "port_number", description = "port (default 7471)")
    String port = "7471";
    @Option(names = "-m", description = "migrate to a new event channel (not offered)")
    boolean migrate;
    @Option(names = "-a", paramLabel = "ack_timeout", description = "ACK timeout (not offered)")
    String ackTimeout;
    @Option(names = "-d", description = "jrdma: also print when the server listens (\"cmatose: listening on ADDR port N\")")
    boolean debug;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    /** One connection, cmatose's {@code struct cmatest_node}. */
    private static final class Node {
        final int index;
        CmId id;
        boolean connected;
        ProtectionDomain pd;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        QueuePair qp;
        MemoryRegion mr;
        MemorySegment mem;

        Node(int index) {
            this.index = index;
        }
    }

    private EventChannel channel;
    private Node[] nodes;
    private final Map<CmId, Node> byId = new HashMap<>();
    private int connIndex;
    private int connectsLeft;
    private int disconnectsLeft;
    private Arena arena;
    private final WorkCompletion[] wc = {new WorkCompletion()};

    public Ucmatose(PrintStream out) {
        this.out = out;
    }

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    @Override
    public Integer call() {
        if (migrate) {
            throw bad("-m: rdma_migrate_id is not offered by jrdma's CM (org.jrdma.cm)");
        }
        if (ackTimeout != null) {
            throw bad("-a: the ACK timeout option (RDMA_OPTION_ID_ACK_TIMEOUT) is not offered by jrdma's CM");
        }
        if (portSpace != null && !portSpace.toLowerCase(Locale.ROOT).startsWith("tcp")) {
            throw bad("-P " + portSpace + ": only port space tcp is offered (RDMA_PS_IB needs AF_IB addressing)");
        }
        if (format != null && format.toLowerCase(Locale.ROOT).startsWith("gid")) {
            throw bad("-f gid: AF_IB addresses are not offered by jrdma's CM");
        }
        if (connections < 1 || messageCount < 0 || messageSize < 0) {
            throw bad("-c must be at least 1, -C and -S at least 0");
        }
        if (messageSize == 0) {
            messageCount = 0; // create_message
        }
        int tosValue = -1;
        if (tos != null) {
            tosValue = (int) (Long.decode(tos) & 0xff);
        }
        int portNumber;
        try {
            portNumber = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw bad("-p " + port + ": not a port number");
        }
        connectsLeft = connections;
        channel = EventChannel.create();
        arena = Arena.ofShared();
        nodes = new Node[connections];
        for (int i = 0; i < connections; i++) {
            nodes[i] = new Node(i);
            if (dstAddr != null) {
                nodes[i].id = CmId.create(channel, nodes[i], PortSpace.TCP);
                byId.put(nodes[i].id, nodes[i]);
            }
        }
        int ret;
        try {
            ret = dstAddr != null ? runClient(portNumber, tosValue) : runServer(portNumber);
        } catch (VerbsException e) {
            out.printf("cmatose: %s%n", e.getMessage());
            ret = -e.errno();
        }
        out.printf("test complete%n");
        destroyNodes();
        channel.close();
        arena.close();
        out.printf("return status %d%n", ret);
        out.flush();
        return ret & 0xff;
    }

    private InetAddress address(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (UnknownHostException e) {
            throw new VerbsException(org.jrdma.verbs.Errno.EADDRNOTAVAIL, "getaddrinfo error: cannot resolve '" + a + "'");
        }
    }

    // ---- cmatose.c's handlers ----

    /** init_node and create_message. */
    private void initNode(Node n) {
        n.pd = n.id.verbs().allocPd();
        int cqe = messageCount != 0 ? messageCount : 1;
        n.sendCq = n.id.verbs().createCq(cqe, null);
        n.recvCq = n.id.verbs().createCq(cqe, null);
        QpInitAttr ia = new QpInitAttr().sendCq(n.sendCq).recvCq(n.recvCq).sqSigAll(true);
        ia.cap().maxSendWr(cqe).maxRecvWr(cqe).maxSendSge(1).maxRecvSge(1);
        n.qp = n.id.createQp(n.pd, ia);
        if (messageCount != 0) {
            n.mem = arena.allocate(messageSize, 64);
            n.mr = n.pd.regMr(n.mem, AccessFlags.LOCAL_WRITE);
        }
    }

    private void postRecvs(Node n) {
        if (messageCount == 0) {
            return;
        }
        RecvWr wr = new RecvWr().wrId(n.index).sgList(new Sge(n.mem.address(), messageSize, n.mr.lkey()));
        for (int i = 0; i < messageCount; i++) {
            n.qp.postRecv(wr);
        }
    }

    private void postSends(Node n) {
        if (!n.connected || messageCount == 0) {
            return;
        }
        SendWr wr = new SendWr().wrId(n.index).opcode(WrOpcode.SEND).sendFlags(0)
                .sgList(new Sge(n.mem.address(), messageSize, n.mr.lkey()));
        for (int i = 0; i < messageCount; i++) {
            n.qp.postSend(wr);
        }
    }

    private int cmaHandler(CmEvent e) {
        Node n = byId.get(e.id());
        switch (e.type()) {
            case ADDR_RESOLVED -> {
                e.id().resolveRoute(Duration.ofMillis(2000));
            }
            case ROUTE_RESOLVED -> {
                try {
                    initNode(n);
                    postRecvs(n);
                    e.id().connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(5));
                } catch (VerbsException ex) {
                    out.printf("cmatose: failure connecting: %s%n", ex.getMessage());
                    connectsLeft--;
                    return -ex.errno();
                }
            }
            case CONNECT_REQUEST -> {
                return connectHandler(e.id());
            }
            case ESTABLISHED -> {
                if (n != null) {
                    n.connected = true;
                }
                connectsLeft--;
                disconnectsLeft++;
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                out.printf("cmatose: event: %s, error: %d%n", e.type().eventStr(), e.status());
                connectsLeft--;
                return e.status();
            }
            case DISCONNECTED -> {
                try {
                    e.id().disconnect();
                } catch (VerbsException ignored) {
                    // cmatose ignores this call's outcome
                }
                disconnectsLeft--;
            }
            default -> {
            }
        }
        return 0;
    }

    private int connectHandler(CmId id) {
        if (connIndex == connections) {
            out.printf("cmatose: failing connection request%n");
            id.reject(null);
            return -org.jrdma.verbs.Errno.ENOMEM;
        }
        Node n = nodes[connIndex++];
        n.id = id;
        byId.put(id, n);
        try {
            initNode(n);
            postRecvs(n);
            id.accept(null);
        } catch (VerbsException ex) {
            out.printf("cmatose: failure accepting: %s%n", ex.getMessage());
            n.id = null;
            connectsLeft--;
            out.printf("cmatose: failing connection request%n");
            id.reject(null);
            return -ex.errno();
        }
        return 0;
    }

    /** connect_events / disconnect_events: events until the count reaches 0 or a handler fails. */
    private int events(boolean connect) {
        int ret = 0;
        while ((connect ? connectsLeft : disconnectsLeft) > 0 && ret == 0) {
            CmEvent e = channel.getEvent();
            ret = cmaHandler(e);
            e.ack();
        }
        return ret;
    }

    /** poll_cqs: {@code messageCount} completions of each connected node's send or receive CQ. */
    private int pollCqs(boolean send) {
        for (Node n : nodes) {
            if (!n.connected) {
                continue;
            }
            CompletionQueue cq = send ? n.sendCq : n.recvCq;
            long end = System.nanoTime() + POLL_LIMIT.toNanos();
            for (int done = 0, idle = 0; done < messageCount; ) {
                if (cq.poll(wc) == 0) {
                    if (System.nanoTime() > end) {
                        out.printf("cmatose: no completion within %d s (%d of %d)%n", POLL_LIMIT.toSeconds(), done,
                                messageCount);
                        return -org.jrdma.verbs.Errno.ETIMEDOUT;
                    }
                    if (idle++ < 4096) {
                        Thread.onSpinWait();
                    } else {
                        LockSupport.parkNanos(50_000);
                    }
                    continue;
                }
                idle = 0;
                done++;
                if (wc[0].status() != WcStatus.SUCCESS) {
                    out.printf("cmatose: failed polling CQ: completion status %s%n", wc[0].status().str());
                    return -org.jrdma.verbs.Errno.EIO;
                }
            }
        }
        return 0;
    }

    private int runServer(int portNumber) {
        out.printf("cmatose: starting server%n");
        out.flush();
        CmId listen = CmId.create(channel, null, PortSpace.TCP);
        try {
            InetAddress bindTo = srcAddr != null ? address(srcAddr) : InetAddress.getByAddress(new byte[4]);
            try {
                listen.bind(new InetSocketAddress(bindTo, portNumber));
            } catch (VerbsException e) {
                out.printf("cmatose: bind address failed: %s%n", e.getMessage());
                return -e.errno();
            }
            try {
                listen.listen(0);
            } catch (VerbsException e) {
                out.printf("cmatose: failure trying to listen: %s%n", e.getMessage());
                return -e.errno();
            }
            if (debug) {
                out.printf("cmatose: listening on %s port %d%n", bindTo.getHostAddress(), portNumber);
                out.flush();
            }
            int ret = events(true);
            if (ret != 0) {
                return ret;
            }
            if (messageCount != 0) {
                out.printf("initiating data transfers%n");
                for (Node n : nodes) {
                    postSends(n);
                }
                out.printf("completing sends%n");
                ret = pollCqs(true);
                if (ret != 0) {
                    return ret;
                }
                out.printf("receiving data transfers%n");
                ret = pollCqs(false);
                if (ret != 0) {
                    return ret;
                }
                out.printf("data transfers complete%n");
            }
            out.printf("cmatose: disconnecting%n");
            for (Node n : nodes) {
                if (!n.connected) {
                    continue;
                }
                n.connected = false;
                n.id.disconnect();
            }
            ret = events(false);
            out.printf("disconnected%n");
            return ret;
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        } finally {
            listen.destroy();
        }
    }

    private int runClient(int portNumber, int tosValue) {
        out.printf("cmatose: starting client%n");
        InetSocketAddress dst = new InetSocketAddress(address(dstAddr), portNumber);
        InetSocketAddress src = srcAddr == null ? null : new InetSocketAddress(address(srcAddr), 0);
        out.printf("cmatose: connecting%n");
        out.flush();
        for (Node n : nodes) {
            if (tosValue >= 0) {
                n.id.setTos(tosValue);
            }
            n.id.resolveAddr(src, dst, Duration.ofMillis(2000));
        }
        int ret = events(true);
        if (ret == 0 && messageCount != 0) {
            out.printf("receiving data transfers%n");
            ret = pollCqs(false);
            if (ret == 0) {
                out.printf("sending replies%n");
                for (Node n : nodes) {
                    postSends(n);
                }
                out.printf("data transfers complete%n");
            }
        }
        int ret2 = events(false);
        return ret2 != 0 ? ret2 : ret;
    }

    /** destroy_node for each: QP, CQs, MR, PD, then the ID. */
    private void destroyNodes() {
        for (Node n : nodes) {
            if (n.id == null) {
                continue;
            }
            try {
                if (n.qp != null) {
                    n.qp.close();
                }
                if (n.sendCq != null) {
                    n.sendCq.close();
                    n.recvCq.close();
                }
                if (n.mr != null) {
                    n.mr.close();
                }
                if (n.pd != null) {
                    n.pd.close();
                }
            } catch (VerbsException ignored) {
                // best effort at exit
            }
            n.id.destroy();
        }
    }
}
