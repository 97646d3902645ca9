package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

/** The data-path operations allocate nothing once warm (measured with the thread's allocation counter). */
class AllocationTest {
    @Test
    void icrcValidatorAndFlyweightsAllocateNothing() throws Exception {
        // java.management is not read by the module under test: reach ThreadMXBean reflectively
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        PacketBuffer b = PacketBuffer.allocate(2048);
        Icrc icrc = new Icrc();
        Bth bth = new Bth();
        Reth reth = new Reth();
        long sink = 0;
        long before = 0;
        for (int round = 0; round < 2; round++) {
            if (round == 1) {
                before = (long) allocated.invoke(mx);
            }
            for (int i = 0; i < 20_000; i++) {
                bth.wrap(b.seg, 0).opcode(Opcode.RC_RDMA_WRITE_FIRST).pkey(0xffff).destQpn(0x12).psn(i).ackReq(false);
                reth.wrap(b.seg, Opcode.offset(Opcode.RC_RDMA_WRITE_FIRST, Opcode.RETH)).va(i).rkey(0x398).dmaLength(8192);
                int len = Opcode.headerLength(Opcode.RC_RDMA_WRITE_FIRST) + 1024;
                int c = icrc.ipv4(0x0a4d000c, 0x0a4d000b, i & 0xffff, 0x4000, 49476, 4791, b, 0, len);
                Icrc.write(b, len, c);
                sink += icrc.solveIpv4Id(0x0a4d000c, 0x0a4d000b, 0x4000, 49476, 4791, b, 0, len, Icrc.read(b, len));
                sink += icrc.ipv6(1, 2, 3, 4, 49476, 4791, b, 0, len);
                sink += PacketValidator.validate(b, 0, len + 4, 1024, true);
                sink += bth.wrap(b.seg, 0).psn() + reth.rkey();
            }
        }
        long bytes = (long) allocated.invoke(mx) - before;
        assertTrue(sink != 42);
        assertTrue(bytes < 20_000, "20000 packets allocated " + bytes + " bytes");
    }
}
