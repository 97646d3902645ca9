package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * MPA CRC32c negotiated (siw's {@code mpa_crc_required}, here {@code jrdma.iwarp.mpaCrcRequired}):
 * both sides frame and check every FPDU with CRC; SEND, WRITE and READ still arrive whole (a wrong
 * CRC would be a Terminate and a DISCONNECTED). A JVM of its own (surefire reuseForks false).
 */
class SiwCrcLoopbackTest {
    static {
        System.setProperty("jrdma.iwarp.mpaCrcRequired", "true");
    }

    @Test
    void sendWriteReadWithCrc() {
        try (SiwCmLoopbackTest.Pair p = new SiwCmLoopbackTest.Pair(1)) {
            int n = 200_000;
            SiwCmLoopbackTest.fill(p.cmr.segment(), 0, n, 5);
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), n, p.cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            WorkCompletion r = SiwCmLoopbackTest.poll(p.scq);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(n, r.byteLen());
            p.cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 1001, p.cmr.lkey())).rdma(p.smr.addr() + 400_001, p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            p.cqp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr() + 600_000, n, p.cmr.lkey())).rdma(p.smr.addr(), p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            assertArrayEquals(SiwCmLoopbackTest.bytes(p.cmr.segment(), 0, n), SiwCmLoopbackTest.bytes(p.cmr.segment(), 600_000, n));
            assertArrayEquals(SiwCmLoopbackTest.bytes(p.cmr.segment(), 0, 1001), SiwCmLoopbackTest.bytes(p.smr.segment(), 400_001, 1001));
        }
    }
}
