package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device in UDP mode on loopback connects its flow sockets, so the kernel writes a per-socket
 * counter into the IPv4 Identification of datagrams whose ICRC assumed 0; a device in raw mode sees
 * that header. RDMA WRITEs and their ACKs must still pass both ways (and no packet be dropped for
 * its ICRC) between a raw-mode and a UDP-mode device on loopback.
 */
class MixedIpv4ModesTest {

    @Test
    @Timeout(60)
    void writesPassBothWaysBetweenARawModeAndAUdpModeDeviceOnLoopback() {
        assumeTrue(RawIpv4Socket.permitted(), "the raw IPv4 port needs root / CAP_NET_RAW");
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String raw = "mr" + r, udp = "mu" + r;
        System.setProperty("jrdma.devices", raw + "=127.88." + r + ".1," + udp + "=127.88." + r + ".2");
        System.setProperty("jrdma.ipv4." + raw, "raw");
        System.setProperty("jrdma.ipv4." + udp, "udp");
        try (Context cr = Verbs.getDevice(raw).open(); Context cu = Verbs.getDevice(udp).open();
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pr = cr.allocPd(), pu = cu.allocPd();
            CompletionQueue qcr = cr.createCq(16, null), qcu = cu.createCq(16, null);
            QueuePair a = pr.createQp(attr(qcr)), b = pu.createQp(attr(qcu));
            // ACK timeout 18 (1.07 s), not perftest's 14 (67 ms): a dropped packet still shows as a
            // retransmission, but a thread stalled for tens of ms on a loaded machine does not
            FaultToleranceTest.connect(a, b, cu.queryGid(1, 0), 100, 200, 18);
            FaultToleranceTest.connect(b, a, cr.queryGid(1, 0), 200, 100, 18);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
            MemorySegment ma = arena.allocate(8192, 64), mb = arena.allocate(8192, 64);
            MemoryRegion ra = pr.regMr(ma, all), rb = pu.regMr(mb, all);
            WorkCompletion[] wc = {new WorkCompletion()};
            for (int i = 0; i < 200; i++) {
                int len = 1 + (i * 37) % 4000; // one to four packets at MTU 1024
                ma.set(ValueLayout.JAVA_BYTE, len - 1, (byte) i);
                write(a, ma, ra, mb.address() + 4096, rb.rkey(), len, qcr, wc);
                assertEquals((byte) i, mb.get(ValueLayout.JAVA_BYTE, 4096 + len - 1), "raw -> udp, write " + i);
                mb.set(ValueLayout.JAVA_BYTE, len - 1, (byte) ~i);
                write(b, mb, rb, ma.address() + 4096, ra.rkey(), len, qcu, wc);
                assertEquals((byte) ~i, ma.get(ValueLayout.JAVA_BYTE, 4096 + len - 1), "udp -> raw, write " + i);
            }
            int badIcrc = org.jrdma.rocev2.stats.Counters.RCVD_DROP_BASE + org.jrdma.rocev2.wire.DropReason.BAD_ICRC;
            assertEquals(0, ((RxeContext) cr).counters().get(badIcrc), "raw-mode device dropped packets for their ICRC");
            assertEquals(0, ((RxeContext) cu).counters().get(badIcrc), "udp-mode device dropped packets for their ICRC");
            assertEquals(0, ((RxeContext) cr).counters().get(org.jrdma.rocev2.stats.Counters.RETRANSMITS), "retransmissions");
            assertEquals(0, ((RxeContext) cu).counters().get(org.jrdma.rocev2.stats.Counters.RETRANSMITS), "retransmissions");
        } finally {
            System.clearProperty("jrdma.ipv4." + raw);
            System.clearProperty("jrdma.ipv4." + udp);
        }
    }

    private static QpInitAttr attr(CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        return ia;
    }

    private static void write(QueuePair q, MemorySegment src, MemoryRegion mr, long raddr, int rkey, int len,
                              CompletionQueue cq, WorkCompletion[] wc) {
        q.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(src.address(), len, mr.lkey())).rdma(raddr, rkey));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 10 s");
            }
            Thread.onSpinWait();
        }
        assertEquals(WcStatus.SUCCESS, wc[0].status());
    }
}
