package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.jrdma.cm.CmEventType;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.jfr.JrdmaEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15: the Flight Recorder events of the software iWARP provider, recorded with a
 * {@link Recording} to a file: a jsiw pair connected through the CM ({@link SiwCmLoopbackTest.Pair}),
 * an RDMA READ with a wrong rkey (the server sends a Terminate, both QPs go to ERR, the server's
 * receive WQE is flushed), then destroy. Asserts the QP state changes of both sides, the error
 * completions, the Terminate sent and received with the same codes, and the CM events.
 */
class SiwJfrEventsTest {
    @Test
    @Timeout(60)
    void aReadWithABadRkeyRecordsTheTerminateTheErrorCompletionsAndTheStateChanges() throws IOException {
        QueuePair[] qps = new QueuePair[2];
        WorkCompletion[] got = new WorkCompletion[1];
        List<RecordedEvent> ev = record(() -> {
            try (SiwCmLoopbackTest.Pair p = new SiwCmLoopbackTest.Pair(1)) {
                qps[0] = p.cqp;
                qps[1] = p.sqp;
                p.cqp.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(p.cmr.addr(), 64, p.cmr.lkey())).rdma(p.smr.addr(), p.smr.rkey() ^ 0x5a5a00));
                got[0] = SiwCmLoopbackTest.poll(p.ccq);
                assertEquals(WcStatus.WR_FLUSH_ERR, SiwCmLoopbackTest.poll(p.scq).status());
                SiwCmLoopbackTest.expect(p.cch, CmEventType.DISCONNECTED);
                assertEquals(QpState.ERR, p.cqp.state());
                assertEquals(QpState.ERR, p.sqp.state());
            }
        });
        String client = "jsiw1";
        String server = "jsiw0";
        // the client's READ failed: one error completion with its wr_id, status and opcode
        List<RecordedEvent> cerr = of(ev, JrdmaEvents.ERROR_COMPLETION, qp(client, qps[0]));
        assertEquals(1, cerr.size(), () -> dump(ev));
        assertEquals(9, cerr.get(0).getLong("wrId"));
        assertEquals(got[0].status().name(), cerr.get(0).getString("status"));
        assertNotEquals("SUCCESS", cerr.get(0).getString("status"));
        assertEquals("RDMA_READ", cerr.get(0).getString("opcode"));
        // the server's receive WQE was flushed
        List<RecordedEvent> serr = of(ev, JrdmaEvents.ERROR_COMPLETION, qp(server, qps[1]));
        assertEquals(1, serr.size(), () -> dump(ev));
        assertEquals("WR_FLUSH_ERR", serr.get(0).getString("status"));
        assertEquals("RECV", serr.get(0).getString("opcode"));
        assertEquals(100, serr.get(0).getLong("wrId"));
        // the server sent a Terminate (RDMAP remote protection error), the client received the same codes
        List<RecordedEvent> sent = of(ev, JrdmaEvents.TERMINATE, qp(server, qps[1]));
        List<RecordedEvent> rcvd = of(ev, JrdmaEvents.TERMINATE, qp(client, qps[0]));
        assertEquals(1, sent.size(), () -> dump(ev));
        assertEquals(1, rcvd.size(), () -> dump(ev));
        assertTrue(sent.get(0).getBoolean("sent"));
        assertFalse(rcvd.get(0).getBoolean("sent"));
        for (String f : List.of("layer", "errorType", "errorCode")) {
            assertEquals(sent.get(0).getInt(f), rcvd.get(0).getInt(f), f);
        }
        assertEquals(0, sent.get(0).getInt("layer"), () -> dump(ev)); // RDMAP (RFC 5040 §7.2)
        // both QPs: created, driven to RTS by the CM, to ERR by the Terminate, to RESET by destroy
        for (int i = 0; i < 2; i++) {
            String dev = i == 0 ? client : server;
            List<String> t = transitions(ev, dev, qps[i]);
            assertEquals("RESET>INIT:MODIFY", t.getFirst(), () -> dump(ev));
            assertTrue(t.contains("RTR>RTS:MODIFY") || t.contains("INIT>RTS:MODIFY"), () -> dev + " " + t);
            assertTrue(t.contains("RTS>ERR:ERROR"), () -> dev + " " + t);
            assertEquals("ERR>RESET:DESTROY", t.getLast(), () -> dev + " " + t);
        }
        // the CM events of both sides
        List<String> ccm = of(ev, JrdmaEvents.CM_EVENT, e -> client.equals(e.getString("device")))
                .stream().map(e -> e.getString("eventType")).toList();
        assertEquals(List.of("ADDR_RESOLVED", "ROUTE_RESOLVED", "ESTABLISHED", "DISCONNECTED"), ccm.subList(0, 4),
                () -> dump(ev));
        List<RecordedEvent> scm = of(ev, JrdmaEvents.CM_EVENT, e -> server.equals(e.getString("device")));
        assertEquals("CONNECT_REQUEST", scm.get(0).getString("eventType"), () -> dump(ev));
        assertEquals("ESTABLISHED", scm.get(1).getString("eventType"), () -> dump(ev));
        assertEquals(qps[1].qpNum(), scm.get(1).getLong("qpNum"));
        assertEquals(SiwCmLoopbackTest.CLIENT.getHostAddress(), scm.get(1).getString("peerAddress"));
        assertEquals(SiwCmLoopbackTest.SERVER.getHostAddress(), scm.get(1).getString("localAddress"));
        // iWARP leaves retransmission to TCP and has no RNR
        assertTrue(of(ev, JrdmaEvents.RETRANSMIT, e -> true).isEmpty(), () -> dump(ev));
        assertTrue(of(ev, JrdmaEvents.RNR_NAK, e -> true).isEmpty(), () -> dump(ev));
    }

    /** Runs {@code scenario} under a recording of jrdma's events and returns them in time order. */
    static List<RecordedEvent> record(Runnable scenario) throws IOException {
        Path file = Files.createTempFile("jrdma-jfr-", ".jfr");
        try (Recording rec = new Recording()) {
            for (String n : List.of(JrdmaEvents.QP_STATE_CHANGE, JrdmaEvents.RETRANSMIT, JrdmaEvents.RNR_NAK,
                    JrdmaEvents.ERROR_COMPLETION, JrdmaEvents.TERMINATE, JrdmaEvents.CM_EVENT)) {
                rec.enable(n);
            }
            rec.start();
            scenario.run();
            rec.stop();
            rec.dump(file);
            List<RecordedEvent> all = new ArrayList<>(RecordingFile.readAllEvents(file));
            all.sort(Comparator.comparing(RecordedEvent::getStartTime)); // each thread's buffer comes on its own
            return all;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    static List<RecordedEvent> of(List<RecordedEvent> all, String name, Predicate<RecordedEvent> p) {
        return all.stream().filter(e -> e.getEventType().getName().equals(name)).filter(p).collect(Collectors.toList());
    }

    static Predicate<RecordedEvent> qp(String device, QueuePair qp) {
        return e -> device.equals(e.getString("device")) && e.getLong("qpNum") == qp.qpNum();
    }

    static List<String> transitions(List<RecordedEvent> all, String device, QueuePair q) {
        return of(all, JrdmaEvents.QP_STATE_CHANGE, qp(device, q)).stream()
                .map(e -> e.getString("from") + ">" + e.getString("to") + ":" + e.getString("cause")).toList();
    }

    static String dump(List<RecordedEvent> all) {
        return all.stream().map(RecordedEvent::toString).collect(Collectors.joining("\n"));
    }
}
