package org.jrdma.rocev2.stats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.jrdma.rocev2.wire.DropReason;
import org.junit.jupiter.api.Test;

class CountersTest {
    @Test
    void theFirstCountersAreRxesHwCountersInRxesOrder() {
        // rxe_hw_counters.c, rxe_counter_name[] (Linux 5.x/6.x)
        String[] rxe = {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
            "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
            "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"};
        String[] ours = new String[rxe.length];
        for (int i = 0; i < rxe.length; i++) {
            ours[i] = Counters.name(i);
        }
        assertArrayEquals(rxe, ours);
        assertEquals(Counters.RETRY_RNR_EXCEEDED_ERR, Counters.id("retry_rnr_exceeded_err"));
        assertEquals("rcvd_drop_bad_icrc", Counters.name(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC));
        assertNull(Counters.name(Counters.COUNT));
        assertEquals(-1, Counters.id("no_such_counter"));
    }

    @Test
    void countsIncrementsAddsAndDrops() {
        Counters c = new Counters();
        c.increment(Counters.RCVD_PKTS);
        c.increment(Counters.RCVD_PKTS);
        c.add(Counters.SENT_PKTS, 40);
        c.addAtomic(Counters.SENT_PKTS, 2);
        c.drop(DropReason.BAD_ICRC);
        c.drop(DropReason.OK);
        c.drop(99);
        assertEquals(2, c.get(Counters.RCVD_PKTS));
        assertEquals(42, c.get(Counters.SENT_PKTS));
        assertEquals(1, c.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC));
        assertEquals(0, c.get(Counters.RCVD_DROP_BASE + DropReason.OK));
        long[] snap = new long[Counters.COUNT];
        c.snapshot(snap);
        assertEquals(42, snap[Counters.SENT_PKTS]);
    }
}
