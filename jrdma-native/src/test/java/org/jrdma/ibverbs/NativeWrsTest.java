package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.jrdma.ibverbs.bind.CLayouts.offset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The data path's translation of work requests into {@code struct ibv_send_wr} / {@code ibv_recv_wr}
 * (no device needed): the fields land where verbs.h has them ({@link IbvLayouts}, checked against the
 * header by {@code IbvLayoutsTest}), an SGE outside its MR or with an unknown lkey is refused before
 * anything reaches the driver, and a post allocates nothing once warm.
 */
class NativeWrsTest {
    private static final int LKEY = 0x1234;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf = arena.allocate(4096, 64);
    private final MrTable mrs = new MrTable();

    NativeWrsTest() {
        MemorySegment fakeMr = arena.allocate(IbvLayouts.MR);
        fakeMr.set(JAVA_INT, IbvLayouts.MR_LKEY_OFF, LKEY);
        fakeMr.set(JAVA_INT, IbvLayouts.MR_RKEY_OFF, 0x5678);
        mrs.put(new IbvMr(null, fakeMr, buf, AccessFlags.LOCAL_WRITE));
    }

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void aSendChainIsLaidOutAsVerbsHSaysWithImmInNetworkOrder() {
        NativeSendWrs w = new NativeSendWrs(arena, 4, 2, mrs, QpType.RC.value());
        SendWr second = new SendWr().wrId(8).opcode(WrOpcode.SEND_WITH_IMM).immData(0x01020304)
                .sgList(new Sge(buf.address() + 100, 50, LKEY));
        SendWr first = new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address(), 64, LKEY), new Sge(buf.address() + 64, 64, LKEY))
                .rdma(0xABCDEF00L, 0x99).next(second);
        assertEquals(2, w.write(first));
        MemorySegment wrs = w.wrs.reinterpret(IbvLayouts.SEND_WR.byteSize() * 2);
        long size = IbvLayouts.SEND_WR.byteSize();
        assertEquals(7L, wrs.get(JAVA_LONG, offset(IbvLayouts.SEND_WR, "wr_id")));
        assertEquals(0, wrs.get(JAVA_INT, offset(IbvLayouts.SEND_WR, "opcode"))); // IBV_WR_RDMA_WRITE
        assertEquals(SendFlags.SIGNALED, wrs.get(JAVA_INT, offset(IbvLayouts.SEND_WR, "send_flags")));
        assertEquals(2, wrs.get(JAVA_INT, offset(IbvLayouts.SEND_WR, "num_sge")));
        assertEquals(0xABCDEF00L, wrs.get(JAVA_LONG, offset(IbvLayouts.SEND_WR, "wr", "rdma", "remote_addr")));
        assertEquals(0x99, wrs.get(JAVA_INT, offset(IbvLayouts.SEND_WR, "wr", "rdma", "rkey")));
        assertEquals(wrs.address() + size, wrs.get(JAVA_LONG, offset(IbvLayouts.SEND_WR, "next")));
        MemorySegment sge = MemorySegment.ofAddress(wrs.get(JAVA_LONG, offset(IbvLayouts.SEND_WR, "sg_list")))
                .reinterpret(32);
        assertEquals(buf.address() + 64, sge.get(JAVA_LONG, 16));
        assertEquals(64, sge.get(JAVA_INT, 24));
        assertEquals(LKEY, sge.get(JAVA_INT, 28));
        assertEquals(8L, wrs.get(JAVA_LONG, size));
        assertEquals(3, wrs.get(JAVA_INT, size + offset(IbvLayouts.SEND_WR, "opcode"))); // IBV_WR_SEND_WITH_IMM
        // __be32 imm_data: the bytes 01 02 03 04 in memory order
        assertEquals(0x04030201, wrs.get(JAVA_INT, size + offset(IbvLayouts.SEND_WR, "$imm", "imm_data")));
        assertEquals(0L, wrs.get(JAVA_LONG, size + offset(IbvLayouts.SEND_WR, "next")));
    }

    @Test
    void anSgeOutsideItsMrOrWithAnUnknownLkeyIsRefused() {
        NativeSendWrs w = new NativeSendWrs(arena, 4, 1, mrs, QpType.RC.value());
        VerbsException past = assertThrows(VerbsException.class, () -> w.write(new SendWr().opcode(WrOpcode.SEND)
                .sgList(new Sge(buf.address() + 4000, 200, LKEY))));
        assertEquals(Errno.EINVAL, past.errno());
        assertTrue(past.getMessage().contains("outside its memory region"), past.getMessage());
        VerbsException unknown = assertThrows(VerbsException.class, () -> w.write(new SendWr().opcode(WrOpcode.SEND)
                .sgList(new Sge(buf.address(), 8, LKEY + 1))));
        assertTrue(unknown.getMessage().contains("lkey 0x1235 is no memory region"), unknown.getMessage());
        VerbsException tooMany = assertThrows(VerbsException.class, () -> w.write(new SendWr().opcode(WrOpcode.SEND)
                .sgList(new Sge(buf.address(), 8, LKEY), new Sge(buf.address(), 8, LKEY))));
        assertTrue(tooMany.getMessage().contains("max_send_sge 1"), tooMany.getMessage());
        NativeRecvWrs r = new NativeRecvWrs(arena, 4, 1, mrs);
        VerbsException before = assertThrows(VerbsException.class, () -> r.write(new RecvWr()
                .sgList(new Sge(buf.address() - 1, 8, LKEY))));
        assertTrue(before.getMessage().contains("ibv_post_recv: wr 0 sg_list[0]"), before.getMessage());
    }

    @Test
    void writingWorkRequestsAllocatesNothing() {
        NativeSendWrs s = new NativeSendWrs(arena, 16, 1, mrs, QpType.RC.value());
        NativeRecvWrs r = new NativeRecvWrs(arena, 16, 1, mrs);
        SendWr swr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sgList(new Sge(buf.address(), 4096, LKEY))
                .rdma(0x1000, 7);
        RecvWr rwr = new RecvWr().wrId(2).sgList(new Sge(buf.address(), 4096, LKEY));
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        int n = 0;
        for (int i = 0; i < 200_000; i++) { // warm up: C2 compiles the path
            n += s.write(swr) + r.write(rwr);
        }
        int ops = 100_000;
        long before = mx.getThreadAllocatedBytes(id);
        for (int i = 0; i < ops; i++) {
            n += s.write(swr) + r.write(rwr);
        }
        long bytes = mx.getThreadAllocatedBytes(id) - before;
        assertEquals(600_000, n);
        assertTrue(bytes < ops / 10, bytes + " bytes over " + ops + " send+recv writes");
    }
}
