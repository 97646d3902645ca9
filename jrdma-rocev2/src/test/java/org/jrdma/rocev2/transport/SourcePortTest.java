package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Golden values: UDP source ports seen in the lab's captures of Linux rxe (testdata/captures, testdata/RESULTS.md). */
class SourcePortTest {
    @Test
    void rcPortsOfTheCaptures() {
        // rxe-rc-write-bw.pcap: QPN 0x12 <-> 0x12, flow label 0, source port 49476
        assertEquals(49476, SourcePort.connected(0x12, 0x12, 0));
        // rxe-rc-pingpong.pcap: QPN 0x17 <-> 0x17, source port 49681
        assertEquals(49681, SourcePort.connected(0x17, 0x17, 0));
    }

    @Test
    void rdmaCmFlowLabel() {
        // RESULTS.md: rdma_cm's flow label 0x61b20 gives source port 56120
        assertEquals(56120, SourcePort.ofFlowLabel(0x61b20));
    }

    @Test
    void qp1Port() {
        // host-mad-ping.pcap / RESULTS.md: QP1 sends from 55410
        assertEquals(55410, SourcePort.datagram(1));
    }
}
