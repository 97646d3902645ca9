package org.jrdma.iwarp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * The iWARP data path allocates nothing once warm: header flyweights, {@link FpduFramer} with CRC32c and
 * {@link FpduDeframer} receiving FPDUs in pieces (zero-copy receive buffer, CRC checked, validator,
 * handler), measured with the thread's allocation counter.
 */
class IwarpAllocationTest {
    private long sink;

    @Test
    void framerDeframerAndFlyweightsAllocateNothing() throws Exception {
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        ByteBuffer tx = ByteBuffer.allocateDirect(4096);
        MemorySegment txSeg = MemorySegment.ofBuffer(tx);
        DdpHeader d = new DdpHeader();
        DdpHeader rx = new DdpHeader();
        ReadRequest rr = new ReadRequest();
        FpduFramer framer = new FpduFramer().crcEnabled(true);
        FpduDeframer deframer = new FpduDeframer().crcEnabled(true);
        FpduHandler h = (seg, off, len) -> {
            rx.wrap(seg, off);
            sink += rx.opcode() + (rx.tagged() ? rx.stag() : rx.msn()) + len;
        };
        long before = 0;
        int n = 20_000;
        for (int round = 0; round < 2; round++) {
            if (round == 1) {
                before = (long) allocated.invoke(mx);
            }
            for (int i = 0; i < n; i++) {
                int ulpdu;
                if ((i & 1) == 0) {
                    d.wrap(txSeg, 2).control(RdmapOpcode.RDMA_WRITE, true).stag(0x398).taggedOffset(i);
                    ulpdu = DdpHeader.TAGGED_LENGTH + 1428;
                } else {
                    d.wrap(txSeg, 2).control(RdmapOpcode.RDMA_READ_REQUEST, true).queueNumber(DdpHeader.QN_READ_REQUEST)
                        .msn(i).messageOffset(0);
                    rr.wrap(txSeg, 2 + DdpHeader.UNTAGGED_LENGTH).sinkStag(1).sinkTaggedOffset(i).readSize(64)
                        .sourceStag(2).sourceTaggedOffset(i);
                    ulpdu = RdmapOpcode.headerLength(RdmapOpcode.RDMA_READ_REQUEST);
                }
                int len = framer.frame(tx, 0, ulpdu);
                // deliver in two pieces: a cut inside the DDP header
                ByteBuffer into = deframer.receiveBuffer();
                into.put(into.position(), tx, 0, 7);
                deframer.process(7, h);
                into = deframer.receiveBuffer();
                into.put(into.position(), tx, 7, len - 7);
                deframer.process(len - 7, h);
            }
        }
        long bytes = (long) allocated.invoke(mx) - before;
        assertEquals(2L * n, deframer.fpdus());
        assertEquals(0, deframer.totalDrops());
        assertTrue(sink != 42);
        assertTrue(bytes < 20_000, n + " FPDUs allocated " + bytes + " bytes");
    }
}
