package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.cm.UdParam;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma udaddy}: rdma-core's {@code librdmacm/examples/udaddy.c} over jrdma's CM (SIDR,
 * PS_UDP), peer-compatible with Linux's {@code udaddy}. The client resolves the server (port 7174,
 * as udaddy fixes it), creates a UD QP per connection, posts its receives and connects (SIDR_REQ);
 * on ESTABLISHED it makes an address handle from the event's {@code rdma_ud_param} and sends
 * {@code -C} datagrams of {@code -S} bytes, SEND with immediate = its QPN (unsignaled), then waits
 * for as many replies. The server accepts {@code -c} requests, waits for {@code -C} datagrams on
 * each, makes the reply address from the first one's GRH and immediate
 * ({@code ibv_create_ah_from_wc}) and the Q_Key from its own QP, and sends as many back (signaled).
 * {@code --debug} (a jrdma extension; udaddy has no such option) prints {@code rdma_listen} once the
 * server listens, as {@code jrdma rping -d} does, so that a test knows when to start the client.
 * Options as udaddy: {@code -s server_address -b bind_address -c connections -C message_count
 * -S message_size -t type_of_service -p port_space (0x111 UDP; 0x2 IPOIB is refused: jrdma has no
 * PS_IPOIB) -P udp|ipoib -f name|ip|ipv6 (gid refused: no AF_IB)}. Output lines as udaddy's
 * ({@code udaddy: starting server}, {@code receiving data transfers}, {@code sending replies},
 * {@code data transfers complete}, {@code test complete}, {@code return status N},
 * {@code udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: 1} ...); the exit status is udaddy's
 * return status.
 *
 * <p>Unlike udaddy, no wait is unbounded but the server's wait for connection requests: a CM event
 * the client waits for that does not come within {@link #CM_EVENT_TIMEOUT}, or a completion either
 * side waits for that does not come within {@link #STEP_TIMEOUT}, ends the run with an error line
 * and status -110 (udaddy would hang on a lost datagram).
 *
 * <p>As every jrdma CM application, a server bound to the wildcard opens every jrdma device (taking
 * its QP1 for the process): two processes on one machine need {@code -b} on both, each on its own device.
 *
 * <p>Threads: one, the caller's: it takes the CM events and polls the CQs, as udaddy.
 */
@Command(name = "udaddy", sortOptions = false, usageHelpAutoWidth = true,
        description = "UD datagrams through the connection manager (SIDR), compatible with rdma-core's udaddy.")
public final class Udaddy implements Callable<Integer> {
    /** udaddy's fixed port. */
    static final int PORT = 7174;
    /** Bytes of the GRH area before each received datagram. */
    static final int GRH = 40;
    static final int RDMA_PS_IPOIB = 0x0002;
    /** How long either side's next completion may take before the run gives up. */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long the client waits for its next CM event: beyond the CM's own bound (a SIDR_REQ is tried
     * 16 times, 4096 ms apart, before UNREACHABLE), so that an unanswered connect ends in UNREACHABLE.
     */
    static final Duration CM_EVENT_TIMEOUT = Duration.ofSeconds(80);

    @Option(names = "-s", paramLabel = "server_address", description = "server address (client mode)") String dstAddr;
    @Option(names = "-b", paramLabel = "bind_address", description = "bind address") String srcAddr;
    @Option(names = "-f", paramLabel = "address_format", description = "name, ip, ipv6 (gid is not offered)") String format;
    @Option(names = "-P", paramLabel = "port_space", description = "udp (ipoib is not offered)") String portSpaceName;
    @Option(names = "-c", paramLabel = "connections", description = "connections (default 1)") int connections = 1;
    @Option(names = "-C", paramLabel = "message_count", description = "messages per connection (default 10)") int messageCount = 10;
    @Option(names = "-S", paramLabel = "message_size", description = "message size (default 100)") int messageSize = 100;
    @Option(names = "-t", paramLabel = "type_of_service", description = "type of service (client)") String tosText;
    @Option(names = "-p", paramLabel = "port_space", description = "port space: 0x111 for UDP (default)") String portSpaceNumber;
    @Option(names = "--debug", description = "(jrdma) print rdma_listen once the server listens") boolean debug;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help") boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private EventChannel channel;
    private Node[] nodes;
    private int connIndex;
    private int connectsLeft;
    private final Map<CmId, Node> byId = new HashMap<>();
    private Arena arena;

    public Udaddy(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** {@code struct cmatest_node}. */
    private static final class Node {
        CmId id;
        boolean connected;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        AddressHandle ah;
        int remoteQpn;
        int remoteQkey;
        MemorySegment mem;
    }

    @Override
    public Integer call() throws Exception {
        if (portSpaceName != null && portSpaceName.regionMatches(true, 0, "ipoib", 0, 5)
                || portSpaceNumber != null && parseC(portSpaceNumber) == RDMA_PS_IPOIB) {
            err.println("udaddy: port space IPOIB (0x2) is not offered by jrdma (PS_UDP only)");
            return 1;
        }
        if (portSpaceName != null && !portSpaceName.regionMatches(true, 0, "udp", 0, 3)) {
            err.println("Warning: unknown port space format");
        }
        if (portSpaceNumber != null && parseC(portSpaceNumber) != PortSpace.UDP.value()) {
            err.printf("udaddy: port space %s is not offered by jrdma (PS_UDP only)%n", portSpaceNumber);
            return 1;
        }
        if (format != null && format.regionMatches(true, 0, "gid", 0, 3)) {
            err.println("udaddy: address format gid (AF_IB) is not offered by jrdma");
            return 1;
        }
        if (format != null && !format.regionMatches(true, 0, "ip", 0, 2) && !format.regionMatches(true, 0, "name", 0, 4)) {
            err.println("Warning: unknown address format");
        }
        connectsLeft = connections;
        nodes = new Node[Math.max(0, connections)];
        int ret;
        try (EventChannel ch = EventChannel.create(); Arena a = Arena.ofShared()) {
            channel = ch;
            arena = a;
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = new Node();
                if (dstAddr != null) {
                    nodes[i].id = CmId.create(ch, nodes[i], PortSpace.UDP);
                    byId.put(nodes[i].id, nodes[i]);
                }
            }
            ret = dstAddr != null ? runClient() : runServer();
            out.println("test complete");
            destroyNodes();
        }
        out.printf("return status %d%n", ret);
        out.flush();
        return ret;
    }

    /** {@code strtoul(s, NULL, 0)}: decimal, 0x hexadecimal or 0 octal. */
    static int parseC(String s) {
        String t = s.trim();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            return (int) Long.parseLong(t.substring(2), 16);
        }
        if (t.length() > 1 && t.startsWith("0")) {
            return (int) Long.parseLong(t.substring(1), 8);
        }
        return (int) Long.parseLong(t);
    }

    private static InetAddress resolve(String s) throws UnknownHostException {
        return InetAddress.getByName(s);
    }

    // ---- udaddy.c's steps ----

    private int runServer() throws Exception {
        out.println("udaddy: starting server");
        CmId listenId = CmId.create(channel, this, PortSpace.UDP);
        try {
            InetAddress src = srcAddr != null ? resolve(srcAddr) : InetAddress.getByAddress(new byte[4]);
            try {
                listenId.bind(new InetSocketAddress(src, PORT));
            } catch (VerbsException e) {
                err.println("udaddy: bind address failed: " + e.getMessage());
                return -e.errno();
            }
            try {
                listenId.listen(0);
            } catch (VerbsException e) {
                err.println("udaddy: failure trying to listen: " + e.getMessage());
                return -e.errno();
            }
            if (debug) {
                out.println("rdma_listen");
                out.flush();
            }
            connectEvents(false);
            int ret = 0;
            if (messageCount != 0) {
                out.println("receiving data transfers");
                ret = pollCqs();
                if (ret != 0) {
                    return ret;
                }
                out.println("sending replies");
                for (Node n : nodes) {
                    ret = postSends(n, SendFlags.SIGNALED);
                    if (ret != 0) {
                        return ret;
                    }
                }
                ret = pollCqs();
                if (ret != 0) {
                    return ret;
                }
                out.println("data transfers complete");
            }
            return ret;
        } finally {
            listenId.destroy();
        }
    }

    private int runClient() throws Exception {
        out.println("udaddy: starting client");
        InetAddress dst = resolve(dstAddr);
        InetSocketAddress src = srcAddr == null ? null : new InetSocketAddress(resolve(srcAddr), 0);
        out.println("udaddy: connecting");
        for (Node n : nodes) {
            try {
                n.id.resolveAddr(src, new InetSocketAddress(dst, PORT), Duration.ofMillis(2000));
            } catch (VerbsException e) {
                err.println("udaddy: failure getting addr: " + e.getMessage());
                connectsLeft--;
                return -e.errno();
            }
        }
        int ret = connectEvents(true);
        if (ret != 0) {
            return ret;
        }
        if (messageCount != 0) {
            out.println("initiating data transfers");
            for (Node n : nodes) {
                ret = postSends(n, 0);
                if (ret != 0) {
                    return ret;
                }
            }
            out.println("receiving data transfers");
            ret = pollCqs();
            if (ret != 0) {
                return ret;
            }
            out.println("data transfers complete");
        }
        return ret;
    }

    /** {@code connect_events}: handles CM events until every connection is made or failed, or a handler fails. */
    private int connectEvents(boolean bounded) {
        int ret = 0;
        while (connectsLeft > 0 && ret == 0) {
            Optional<CmEvent> e = channel.getEvent(bounded ? CM_EVENT_TIMEOUT : Duration.ofSeconds(1));
            if (e.isEmpty()) {
                if (bounded) {
                    err.printf("udaddy: no CM event within %d s%n", CM_EVENT_TIMEOUT.toSeconds());
                    return -110;
                }
                continue;
            }
            CmEvent ev = e.get();
            try {
                ret = cmaHandler(ev);
            } finally {
                ev.ack();
            }
        }
        return ret;
    }

    private int cmaHandler(CmEvent e) {
        switch (e.type()) {
            case ADDR_RESOLVED -> {
                return addrHandler(byId.get(e.id()));
            }
            case ROUTE_RESOLVED -> {
                return routeHandler(byId.get(e.id()));
            }
            case CONNECT_REQUEST -> {
                return connectHandler(e.id());
            }
            case ESTABLISHED -> {
                return resolvedHandler(byId.get(e.id()), e.udParam());
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                out.printf("udaddy: event: %s, error: %d%n", e.type().eventStr(), e.status());
                connectsLeft--;
                return e.status();
            }
            default -> {
                return 0;
            }
        }
    }

    private int addrHandler(Node n) {
        if (tosText != null) {
            try {
                n.id.setTos(parseC(tosText) & 0xff);
            } catch (VerbsException ex) {
                err.println("udaddy: set TOS option failed: " + ex.getMessage());
            }
        }
        try {
            n.id.resolveRoute(Duration.ofMillis(2000));
            return 0;
        } catch (VerbsException ex) {
            err.println("udaddy: resolve route failed: " + ex.getMessage());
            connectsLeft--;
            return -ex.errno();
        }
    }

    private int routeHandler(Node n) {
        int ret = verifyTestParams(n);
        if (ret == 0) {
            ret = initNode(n);
        }
        if (ret == 0) {
            ret = postRecvs(n);
        }
        if (ret == 0) {
            try {
                n.id.connect(new ConnParam());
            } catch (VerbsException ex) {
                err.println("udaddy: failure connecting: " + ex.getMessage());
                ret = -ex.errno();
            }
        }
        if (ret != 0) {
            connectsLeft--;
        }
        return ret;
    }

    private int connectHandler(CmId id) {
        if (connIndex == connections) {
            out.println("udaddy: failing connection request");
            id.reject(null);
            return -12;
        }
        Node n = nodes[connIndex++];
        n.id = id;
        byId.put(id, n);
        int ret = verifyTestParams(n);
        if (ret == 0) {
            ret = initNode(n);
        }
        if (ret == 0) {
            ret = postRecvs(n);
        }
        if (ret == 0) {
            try {
                id.accept(new ConnParam().qpNum(id.qp().qpNum()));
                n.connected = true;
                connectsLeft--;
                return 0;
            } catch (VerbsException ex) {
                err.println("udaddy: failure accepting: " + ex.getMessage());
                ret = -ex.errno();
            }
        }
        n.id = null;
        connectsLeft--;
        out.println("udaddy: failing connection request");
        id.reject(null);
        return ret;
    }

    private int resolvedHandler(Node n, UdParam ud) {
        n.remoteQpn = ud.qpNum();
        n.remoteQkey = ud.qkey();
        try {
            n.ah = n.pd.createAh(ud.ahAttr());
        } catch (VerbsException ex) {
            out.println("udaddy: failure creating address handle");
            connectsLeft--;
            return -1;
        }
        n.connected = true;
        connectsLeft--;
        return 0;
    }

    private int verifyTestParams(Node n) {
        int mtu = n.id.verbs().queryPort(n.id.portNum()).activeMtu().bytes();
        if (messageCount != 0 && messageSize > mtu) {
            out.printf("udaddy: message_size %d is larger than active mtu %d%n", messageSize, mtu);
            return -22;
        }
        return 0;
    }

    private int initNode(Node n) {
        try {
            n.pd = n.id.verbs().allocPd();
        } catch (VerbsException ex) {
            out.println("udaddy: unable to allocate PD");
            return -12;
        }
        int cqe = messageCount != 0 ? messageCount * 2 : 2;
        try {
            n.cq = n.id.verbs().createCq(cqe, null);
        } catch (VerbsException ex) {
            out.println("udaddy: unable to create CQ");
            return -12;
        }
        QpInitAttr a = new QpInitAttr().sendCq(n.cq).recvCq(n.cq);
        a.cap().maxSendWr(messageCount != 0 ? messageCount : 1).maxRecvWr(messageCount != 0 ? messageCount : 1)
                .maxSendSge(1).maxRecvSge(1);
        try {
            n.id.createQp(n.pd, a);
        } catch (VerbsException ex) {
            err.println("udaddy: unable to create QP: " + ex.getMessage());
            return -ex.errno();
        }
        return createMessage(n);
    }

    private int createMessage(Node n) {
        if (messageSize == 0) {
            messageCount = 0;
        }
        if (messageCount == 0) {
            return 0;
        }
        n.mem = arena.allocate(messageSize + GRH, 64);
        try {
            n.mr = n.pd.regMr(n.mem, AccessFlags.LOCAL_WRITE);
        } catch (VerbsException ex) {
            out.println("failed to reg MR");
            return -1;
        }
        return 0;
    }

    private int postRecvs(Node n) {
        if (messageCount == 0) {
            return 0;
        }
        RecvWr wr = new RecvWr().wrId(0).sgList(new Sge(n.mem.address(), messageSize + GRH, n.mr.lkey()));
        for (int i = 0; i < messageCount; i++) {
            try {
                n.id.qp().postRecv(wr);
            } catch (VerbsException ex) {
                out.printf("failed to post receives: %d%n", -ex.errno());
                return -ex.errno();
            }
        }
        return 0;
    }

    private int postSends(Node n, int signalFlag) {
        if (!n.connected || messageCount == 0) {
            return 0;
        }
        SendWr wr = new SendWr().wrId(0).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(signalFlag)
                .immData(n.id.qp().qpNum()).sgList(new Sge(n.mem.address(), messageSize, n.mr.lkey()))
                .ud(n.ah, n.remoteQpn, n.remoteQkey);
        for (int i = 0; i < messageCount; i++) {
            try {
                n.id.qp().postSend(wr);
            } catch (VerbsException ex) {
                out.printf("failed to post sends: %d%n", -ex.errno());
                return -ex.errno();
            }
        }
        return 0;
    }

    /**
     * {@code create_reply_ah}: the reply address from the first datagram ({@code ibv_create_ah_from_wc},
     * {@link AhFromWc}: the GRH area's source address, as rxe writes it, IPv4 in its last 20 bytes),
     * the peer's QPN from the immediate, the Q_Key from our own QP (both sides have {@code RDMA_UDP_QKEY}).
     */
    private void createReplyAh(Node n, WorkCompletion wc) {
        n.ah = n.pd.createAh(AhFromWc.of(n.id.verbs(), n.id.portNum(), wc, n.mem));
        n.remoteQpn = wc.immData();
        QpAttr attr = new QpAttr();
        n.id.qp().query(attr, QpAttrMask.QKEY);
        n.remoteQkey = attr.qkey();
    }

    /** {@code poll_cqs}: {@code -C} completions of each connected node; the first makes a missing reply address. */
    private int pollCqs() {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        for (Node n : nodes) {
            if (!n.connected) {
                continue;
            }
            int done = 0;
            long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
            while (done < messageCount) {
                int got;
                try {
                    got = n.cq.poll(wc);
                } catch (VerbsException ex) {
                    out.printf("udaddy: failed polling CQ: %d%n", -ex.errno());
                    return -ex.errno();
                }
                if (got > 0) {
                    if (n.ah == null) {
                        createReplyAh(n, wc[0]);
                    }
                    done += got;
                    deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
                } else if (System.nanoTime() > deadline) {
                    err.printf("udaddy: %d of %d completions within %d s%n", done, messageCount, STEP_TIMEOUT.toSeconds());
                    return -110;
                } else {
                    Thread.onSpinWait();
                }
            }
        }
        return 0;
    }

    private void destroyNodes() {
        for (Node n : nodes) {
            if (n == null || n.id == null) {
                continue;
            }
            if (n.ah != null) {
                n.ah.close();
            }
            n.id.destroyQp();
            if (n.cq != null) {
                n.cq.close();
            }
            if (n.mr != null) {
                n.mr.close();
            }
            if (n.pd != null) {
                n.pd.close();
            }
            n.id.destroy();
        }
    }
}
