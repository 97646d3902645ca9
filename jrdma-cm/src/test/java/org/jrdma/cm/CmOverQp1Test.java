package org.jrdma.cm;

import static org.jrdma.cm.CmLoopbackTest.CLIENT;
import static org.jrdma.cm.CmLoopbackTest.SERVER;
import static org.jrdma.cm.CmLoopbackTest.WAIT;
import static org.jrdma.cm.CmLoopbackTest.expect;
import static org.jrdma.cm.CmLoopbackTest.listen;
import static org.jrdma.cm.CmLoopbackTest.qp;
import static org.jrdma.cm.CmLoopbackTest.resolved;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpState;
import org.junit.jupiter.api.Test;

/**
 * The CM over the provider's own QP1 (the GSI of jrxe0 and jrxe1, MADs as RoCE v2 UD packets over
 * loopback), no test double: connect, accept, disconnect to TIMEWAIT_EXIT; a port nobody listens
 * on; an address nobody answers on.
 */
class CmOverQp1Test {
    @Test
    void connectAcceptDisconnectThroughTheDevicesQp1() {
        int port = 7300;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            byte[] hi = "over QP1".getBytes(StandardCharsets.US_ASCII);
            client.connect(new ConnParam().privateData(hi).responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertArrayEquals(hi, Arrays.copyOf(req.privateData(), hi.length));
            CmId server = req.id();
            qp(server, server.verbs().allocPd());
            server.accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, client.qp().state());
            assertEquals(QpState.RTS, server.qp().state());
            server.disconnect();   // the passive side may disconnect first as well
            expect(cch, CmEventType.DISCONNECTED);
            client.disconnect();
            expect(sch, CmEventType.DISCONNECTED);
            expect(sch, CmEventType.TIMEWAIT_EXIT);
            expect(cch, CmEventType.TIMEWAIT_EXIT);
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }

    @Test
    void aPortNobodyListensOnIsRejectedWithInvalidServiceId() {
        try (EventChannel cch = EventChannel.create(); CmId bound = CmLoopbackTest.serverCmRunning()) {
            CmId client = resolved(cch, 7301);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            assertEquals(8, expect(cch, CmEventType.REJECTED).status());
            client.destroy();
        }
    }

    @Test
    void anAddressWithoutACmIsUnreachableWithinTheTimeouts() {
        try (EventChannel cch = EventChannel.create()) {
            CmId client = CmId.create(cch, null, PortSpace.TCP);
            // 127.X.Y.3 is local, but no device binds it: the REQs go unanswered
            byte[] a = SERVER.getAddress();
            a[3] = 3;
            client.resolveAddr(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(CmLoopbackTest.addr(
                    (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + ".3"), 7302), WAIT);
            expect(cch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(WAIT);
            expect(cch, CmEventType.ROUTE_RESOLVED);
            qp(client, client.verbs().allocPd());
            client.setCmTimeouts(8, 1);
            long t0 = System.nanoTime();
            client.connect(new ConnParam());
            CmEvent e = expect(cch, CmEventType.UNREACHABLE);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(-Errno.ETIMEDOUT, e.status());
            assertTrue(ms >= 4000 && ms < 9000, "two tries of 2049 ms, took " + ms);
            client.destroy();
        }
    }
}
