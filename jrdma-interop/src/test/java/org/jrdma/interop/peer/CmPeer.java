package org.jrdma.interop.peer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.CmStatistics;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.QpInitAttr;

/**
 * jrdma's CM in the lab (run by {@code RxeCmRobustInteropTest} on the host in the lab namespace,
 * device {@code jrxe0} of {@code JRDMA_DEVICES}):
 * <ul>
 * <li>{@code serve ADDR SECS}: an ID bound to ADDR (port 1), so that this process's CM answers
 * REQs to ports nobody listens on; prints {@code serving}, exits 0 after SECS;</li>
 * <li>{@code connect SRC DST PORT SECS}: connects an RC QP to DST:PORT and prints each CM event; on
 * DISCONNECTED it disconnects too (rdma_disconnect, the DREP) and waits for TIMEWAIT_EXIT.</li>
 * </ul>
 * Each event is a line {@code event RDMA_CM_EVENT_X status N}, a REJECTED one also
 * {@code private data "TEXT"} (up to its first NUL). Exit 0 after TIMEWAIT_EXIT or REJECTED, 1 when
 * SECS pass first or on another error event. Ends with the CM's counters ({@code cm ...}).
 */
public final class CmPeer {
    private CmPeer() {
    }

    public static void main(String[] a) throws Exception {
        int rc;
        if (a[0].equals("serve")) {
            try (CmId id = CmId.create(EventChannel.create(), null, PortSpace.TCP)) {
                id.bind(new InetSocketAddress(InetAddress.getByName(a[1]), 1));
                System.out.println("serving");
                Thread.sleep(Long.parseLong(a[2]) * 1000);
                rc = 0;
            }
        } else {
            rc = connect(InetAddress.getByName(a[1]), InetAddress.getByName(a[2]), Integer.parseInt(a[3]),
                    Duration.ofSeconds(Long.parseLong(a[4])));
        }
        CmStatistics.all().forEach(s -> System.out.println("cm " + s.device() + " " + s.counters()));
        System.exit(rc);
    }

    private static int connect(InetAddress src, InetAddress dst, int port, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        try (EventChannel ch = EventChannel.create()) {
            CmId id = CmId.create(ch, null, PortSpace.TCP);
            id.resolveAddr(new InetSocketAddress(src, 0), new InetSocketAddress(dst, port), Duration.ofSeconds(2));
            while (true) {
                Optional<CmEvent> o = ch.getEvent(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
                if (o.isEmpty()) {
                    System.out.println("no event within " + limit.toSeconds() + " s");
                    return 1;
                }
                CmEvent e = o.get();
                CmEventType t = e.type();
                byte[] pd = e.privateData();
                e.ack();
                System.out.println("event " + t.eventStr() + " status " + e.status());
                switch (t) {
                    case ADDR_RESOLVED -> id.resolveRoute(Duration.ofSeconds(2));
                    case ROUTE_RESOLVED -> {
                        CompletionQueue cq = id.verbs().createCq(8, null);
                        QpInitAttr init = new QpInitAttr().sendCq(cq).recvCq(cq);
                        init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
                        id.createQp(id.verbs().allocPd(), init);
                        id.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
                    }
                    case ESTABLISHED -> System.out.println("established");
                    case REJECTED -> {
                        int n = 0;
                        while (pd != null && n < pd.length && pd[n] != 0) {
                            n++;
                        }
                        System.out.println("private data \"" + new String(pd == null ? new byte[0] : pd, 0, n,
                                StandardCharsets.US_ASCII) + "\"");
                        return 0;
                    }
                    case DISCONNECTED -> id.disconnect();
                    case TIMEWAIT_EXIT -> {
                        return 0;
                    }
                    default -> {
                        return 1;
                    }
                }
            }
        }
    }
}
