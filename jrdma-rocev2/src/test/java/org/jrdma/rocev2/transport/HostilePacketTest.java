package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * Malformed, unexpected and hostile packets are dropped and counted under their reason, never touch
 * memory, never leave the I/O loop (the device keeps working, and no internal error is counted).
 */
class HostilePacketTest {
    @Test
    void everyBadPacketIsDroppedAndCountedAndTheDeviceKeepsWorking() throws Exception {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = "ha" + r, b = "hb" + r;
        System.setProperty("jrdma.devices", a + "=127.93." + r + ".1," + b + "=127.93." + r + ".2");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared();
             UdpSocket attacker = UdpSocket.open(InetAddress.ofLiteral("127.93." + r + ".3"), 0, null)) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QpInitAttr ia = new QpInitAttr().sendCq(qa).recvCq(qa).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            QpInitAttr ib = new QpInitAttr().sendCq(qb).recvCq(qb).qpType(QpType.RC);
            ib.cap().maxSendWr(16).maxRecvWr(16);
            QueuePair qpa = pa.createQp(ia), qpb = pb.createQp(ib);
            FaultToleranceTest.connect(qpa, qpb, cb.queryGid(1, 0), 100, 200);
            FaultToleranceTest.connect(qpb, qpa, ca.queryGid(1, 0), 200, 100);
            MemorySegment ma = arena.allocate(4096), mb = arena.allocate(4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            Counters cnt = ((RxeContext) cb).counters();
            int dst = ByteBuffer.wrap(InetAddress.ofLiteral("127.93." + r + ".2").getAddress()).getInt();
            int src = ByteBuffer.wrap(InetAddress.ofLiteral("127.93." + r + ".3").getAddress()).getInt();
            SockAddr to = new SockAddr().setIpv4(dst, 4791);
            PacketBuffer p = PacketBuffer.allocate(4200);
            Icrc icrc = new Icrc();

            // a WRITE Only of 8 bytes to B's QP at ePSN 200 with a valid rkey, but from a stranger's address
            int len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0xFFFF, Opcode.RC_RDMA_WRITE_ONLY);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_WRONG_PEER, 1);
            assertEquals(0L, mb.get(ValueLayout.JAVA_LONG, 0), "a stranger's WRITE never reaches memory");
            // unknown QPN
            len = writeOnly(p, 0x777777, 200, mb.address(), rb.rkey(), 0xFFFF, Opcode.RC_RDMA_WRITE_ONLY);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_UNKNOWN_QPN, 1);
            // a P_Key not in the table
            len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0x1234, Opcode.RC_RDMA_WRITE_ONLY);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_BAD_PKEY, 1);
            // a UC opcode for an RC QP
            len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0xFFFF, Opcode.UC_RDMA_WRITE_ONLY);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_WRONG_TRANSPORT, 1);
            // TVer 1
            len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0xFFFF, Opcode.RC_RDMA_WRITE_ONLY);
            new Bth().wrap(p.seg, 0).tver(1);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_BASE + org.jrdma.rocev2.wire.DropReason.BAD_TVER, 1);
            // a reserved opcode
            len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0xFFFF, 0x1F);
            send(attacker, p, len, to, icrc, src, dst);
            awaitCounter(cnt, Counters.RCVD_DROP_BASE + org.jrdma.rocev2.wire.DropReason.BAD_OPCODE, 1);
            // too short, and a bad ICRC
            attacker.sendTo(p.seg, 0, 7, to);
            awaitCounter(cnt, Counters.RCVD_DROP_BASE + org.jrdma.rocev2.wire.DropReason.TOO_SHORT, 1);
            len = writeOnly(p, qpb.qpNum(), 200, mb.address(), rb.rkey(), 0xFFFF, Opcode.RC_RDMA_WRITE_ONLY);
            Icrc.write(p, len, 0x12345678);
            attacker.sendTo(p.seg, 0, len + 4, to);
            awaitCounter(cnt, Counters.RCVD_DROP_BASE + org.jrdma.rocev2.wire.DropReason.BAD_ICRC, 1);
            // 20,000 random mutations and truncations of a valid packet, some with a recomputed ICRC
            SplittableRandom rnd = new SplittableRandom(r);
            for (int i = 0; i < 20_000; i++) {
                len = writeOnly(p, rnd.nextBoolean() ? qpb.qpNum() : rnd.nextInt(1 << 24), rnd.nextInt(1 << 24),
                        mb.address() + rnd.nextInt(-64, 64), rnd.nextBoolean() ? rb.rkey() : rnd.nextInt(), 0xFFFF,
                        rnd.nextInt(256));
                for (int k = rnd.nextInt(4); k > 0; k--) {
                    int at = rnd.nextInt(len);
                    p.seg.set(ValueLayout.JAVA_BYTE, at, (byte) rnd.nextInt(256));
                }
                int cut = rnd.nextInt(10) == 0 ? rnd.nextInt(len + 1) : len;
                if (cut >= Bth.LENGTH && rnd.nextBoolean()) {
                    send(attacker, p, cut, to, icrc, src, dst);
                } else {
                    attacker.sendTo(p.seg, 0, cut + (cut == len ? 4 : 0), to);
                }
            }
            Thread.sleep(300);
            assertEquals(0, cnt.get(Counters.RCVD_DROP_INTERNAL), "no exception in the I/O loop");
            // the connection still works, and nothing from the stranger reached memory
            for (long off = 8; off < 4096; off += 8) {
                assertEquals(0L, mb.get(ValueLayout.JAVA_LONG, off), "memory untouched at " + off);
            }
            ma.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            qpa.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 8, ra.lkey())).rdma(mb.address() + 1024, rb.rkey()));
            WorkCompletion c = RcLoopbackTest.pollOne(qa);
            assertEquals(WcStatus.SUCCESS, c.status(), c + " " + cnt);
            assertEquals(0x1122334455667788L, mb.get(ValueLayout.JAVA_LONG, 1024));
            assertEquals(QpState.RTS, qpb.state());
            System.out.println("counters of the attacked device: " + cnt);
        }
    }

    private static int writeOnly(PacketBuffer p, int qpn, int psn, long va, int rkey, int pkey, int op) {
        new Bth().wrap(p.seg, 0).opcode(op).se(false).migReq(false).padCount(0).tver(0).pkey(pkey).fecn(false)
                .becn(false).destQpn(qpn).ackReq(true).psn(psn);
        new Reth().wrap(p.seg, 12).va(va).rkey(rkey).dmaLength(8);
        p.seg.set(ValueLayout.JAVA_LONG_UNALIGNED, 28, -1L);
        return 36;
    }

    private static void send(UdpSocket s, PacketBuffer p, int len, SockAddr to, Icrc icrc, int src, int dst) {
        Icrc.write(p, len, icrc.ipv4(src, dst, 0, 0x4000, s.localPort(), 4791, p, 0, len));
        s.sendTo(p.seg, 0, len + 4, to);
    }

    private static void awaitCounter(Counters c, int id, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (c.get(id) < atLeast) {
            assertTrue(System.nanoTime() < deadline, "counter " + Counters.name(id) + " stays at " + c.get(id) + ": " + c);
            Thread.sleep(1);
        }
    }
}
