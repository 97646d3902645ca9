package org.jrdma.cm;

import static org.jrdma.cm.CmLoopbackTest.SERVER;
import static org.jrdma.cm.CmLoopbackTest.expect;
import static org.jrdma.cm.CmLoopbackTest.qp;
import static org.jrdma.cm.CmLoopbackTest.resolved;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.mad.CmRej;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.junit.jupiter.api.Test;

/**
 * The storm of {@link CmBoundsTest} through the provider's own QP1, no test double: 10,000 forged
 * REQs sent from jrxe1's QP1 (a MAD agent of the test, as a raw UD sender would) as RoCE v2 UD
 * packets over loopback to jrxe0, whose CM has a listener with backlog 16. What arrives is held to
 * the backlog and the receive queue (UDP may lose some of a flood: the test counts what the CM saw),
 * the pending requests time out, their REJs come back to the sender, the CM holds no connection
 * after, and a legitimate client connects through the CM.
 */
class CmStormOverQp1Test {
    private static long stat(String name) {
        return CmStatistics.of("jrxe0").orElseThrow().get(name);
    }

    private static long seen() {
        return stat("cm_drop_backlog_full") + stat("cm_pending_requests") + stat("cm_drop_stale_request")
                + stat("cm_drop_recv_queue_full");
    }

    @Test
    void aStormOfForgedReqsOverQp1IsBoundedTimesOutAndALegitimateClientConnects() throws Exception {
        int p = 7310;
        Gid server = Gid.of(SERVER);
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(16);
            Map<String, Long> before = CmBoundsTest.liveInstances(CmBoundsTest.CM_CLASSES);
            AtomicInteger rejs = new AtomicInteger();
            try (Context ctx = Verbs.getDevice("jrxe1").open()) {
                ManagementDatagrams mads = ctx.extension(ManagementDatagrams.class).orElseThrow();
                try (ManagementDatagrams.MadAgent agent = mads.register(1, MadHeader.MGMT_CLASS_CM, 2,
                        new ManagementDatagrams.MadHandler() {
                            @Override
                            public void received(ManagementDatagrams.MadAddress from, MemorySegment mad) {
                                if (new MadHeader().wrap(mad, 0).attributeId() == CmRej.ATTRIBUTE_ID) {
                                    rejs.incrementAndGet();
                                }
                            }

                            @Override
                            public void sendFailed(long transactionId) {
                            }
                        }, MadHeader.METHOD_SEND)) {
                    Random rnd = new Random(10_001);
                    for (int i = 0; i < 10_000; i++) {
                        byte[] req = CmBoundsTest.req(rnd.nextInt() | 1, rnd.nextLong(), CmBoundsTest.forged(i), p, 0, 2);
                        agent.send(ManagementDatagrams.MadAddress.gsi(server), MemorySegment.ofArray(req), 0, 0);
                    }
                    // what arrived is counted once: wait until the count stands still
                    long last = -1;
                    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (seen() != last && System.nanoTime() < end) {
                        last = seen();
                        Thread.sleep(500);
                    }
                    long arrived = seen();
                    long pending = stat("cm_pending_requests");
                    System.out.println("CmStormOverQp1Test: " + arrived + " of 10000 REQs reached the CM; "
                            + CmStatistics.of("jrxe0").orElseThrow().counters());
                    assertTrue(arrived > 16, "the storm reached the CM: " + arrived);
                    assertTrue(pending <= 16, "pending at most the backlog: " + pending);
                    assertTrue(stat("cm_connections") <= 16, "connections: " + stat("cm_connections"));

                    end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while ((stat("cm_pending_requests") > 0 || stat("cm_connections") > 0) && System.nanoTime() < end) {
                        Thread.sleep(100);
                    }
                    assertEquals(0, stat("cm_pending_requests"));
                    assertEquals(0, stat("cm_connections"));
                    long stale = stat("cm_drop_stale_request");
                    assertTrue(stale >= 16, "the admitted requests timed out: " + stale);
                    end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (rejs.get() < stale && System.nanoTime() < end) {
                        Thread.sleep(50);
                    }
                    assertEquals(stale, rejs.get(), "a REJ (timeout) for each back at the sender's QP1");
                }
            }
            Map<String, Long> after = CmBoundsTest.liveInstances(CmBoundsTest.CM_CLASSES);
            for (String c : CmBoundsTest.CM_CLASSES) {
                assertEquals(before.get(c), after.get(c), c + " instances: before " + before + ", after " + after);
            }
            // nothing of the storm is left in the listener's channel; a legitimate client connects
            CmId client = resolved(cch, p);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertEquals(CmLoopbackTest.CLIENT, req.id().peerAddress().getAddress());
            qp(req.id(), req.id().verbs().allocPd());
            req.id().accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            client.destroy();
            req.id().destroy();
            listener.destroy();
        }
    }
}
