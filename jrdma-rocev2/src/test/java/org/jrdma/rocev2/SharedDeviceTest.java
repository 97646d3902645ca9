package org.jrdma.rocev2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * Two device objects on one address in one JVM behave as two processes sharing the device
 * ({@link DeviceShare}: each its own SO_REUSEPORT socket, lock files and QPN slot): disjoint QPN
 * ranges, each one's RC traffic reaches it (also after the other leaves and the kernel moves its
 * socket), a QPN nobody owns is counted as unknown, a freed slot is taken again. The process-level
 * proof is {@code SharedDeviceProcessesTest} in jrdma-perftest.
 */
class SharedDeviceTest {
    static String net() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return "127.91." + r.nextInt(1, 255) + ".";
    }

    static InetAddress ip(String s) {
        return InetAddress.ofLiteral(s);
    }

    /** An RC QP of {@code ctx} on its own CQ, with 64 KiB registered. */
    record End(Context ctx, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemorySegment buf, MemoryRegion mr) {
        static End of(Context ctx, Arena arena) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(64, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            MemorySegment buf = arena.allocate(65536, 4096);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            return new End(ctx, pd, cq, pd.createQp(ia), buf, pd.regMr(buf, all));
        }

        void connect(End peer) {
            Gid peerGid = peer.ctx.queryGid(1, 0);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peer.qp.qpNum()).rqPsn(0)
                    .maxDestRdAtomic(1).minRnrTimer(1);
            rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid).hopLimit(64);
            qp.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                    | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                    QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                            | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
        }

        /** RDMA WRITE of 5000 bytes (5 packets, 5 ACK-covered PSNs) into {@code peer}; the completion's status. */
        WcStatus write(End peer, int seed) {
            for (int i = 0; i < 5000; i++) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
            }
            qp.postSend(new SendWr().wrId(seed).opcode(org.jrdma.verbs.WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(buf.address(), 5000, mr.lkey())).rdma(peer.buf.address() + 8, peer.mr.rkey()));
            WorkCompletion[] wc = {new WorkCompletion()};
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (cq.poll(wc) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no completion in 10 s");
                }
                Thread.onSpinWait();
            }
            if (wc[0].status() != WcStatus.SUCCESS) {
                System.err.println("write " + seed + " from QPN " + qp.qpNum() + " to " + peer.qp.qpNum() + ": "
                        + wc[0].status() + "\n  from: " + ((RxeContext) ctx).counters() + "\n  to: "
                        + ((RxeContext) peer.ctx).counters());
                for (Context c : ALL) {
                    System.err.println("  " + c.device().name() + ": " + ((RxeContext) c).counters());
                }
            } else {
                assertEquals(-1L, buf.asSlice(0, 5000).mismatch(peer.buf.asSlice(8, 5000)));
            }
            return wc[0].status();
        }
    }

    static final java.util.List<Context> ALL = new java.util.concurrent.CopyOnWriteArrayList<>();

    static int slot(int qpn) {
        return qpn >>> DeviceShare.SLOT_SHIFT;
    }

    @Test
    void membersOfOneAddressEachGetTheirOwnTraffic() throws Exception {
        scenario("udp");
    }

    /** The same with the raw IPv4 port (each member's receive filter keeps its slot). */
    @Test
    void membersOfOneAddressEachGetTheirOwnTrafficOverRawIpv4() throws Exception {
        assumeTrue(RawIpv4Socket.permitted(), "the raw IPv4 port needs root / CAP_NET_RAW");
        scenario("raw");
    }

    static void scenario(String ipv4) throws Exception {
        String n = net();
        String pre = ipv4.substring(0, 1);
        for (String d : new String[] {"sa1", "sa2", "sa3", "sa4", "sb"}) {
            System.setProperty("jrdma.ipv4." + pre + d, ipv4);
        }
        RxeDevice a1 = new RxeDevice(pre + "sa1", ip(n + "1"));
        RxeDevice a2 = new RxeDevice(pre + "sa2", ip(n + "1"));
        RxeDevice b = new RxeDevice(pre + "sb", ip(n + "2"));
        try (Arena arena = Arena.ofShared(); Context cb = b.open()) {
            assertEquals(ipv4.equals("raw"), b.networkPort() instanceof org.jrdma.rocev2.transport.RawIpv4PacketPort);
            Context c1 = a1.open();
            Context c2 = a2.open();
            ALL.add(c1);
            ALL.add(c2);
            assertArrayEquals(new int[] {17, (1 << 18) - 1}, a1.qpnRange());
            assertArrayEquals(new int[] {1 << 18, (2 << 18) - 1}, a2.qpnRange());
            End e1 = End.of(c1, arena);
            End e2 = End.of(c2, arena);
            End p1 = End.of(cb, arena);
            End p2 = End.of(cb, arena);
            if (ipv4.equals("raw")) {
                // raw IPv4: the first member's socket filter learns of the second at its keeper's next
                // look; until then it also takes (and counts as unowned) the second's datagrams
                Thread.sleep(3L * DeviceShare.KEEPER_MILLIS);
            }
            assertEquals(0, slot(e1.qp.qpNum()));
            assertEquals(1, slot(e2.qp.qpNum()));
            e1.connect(p1);
            p1.connect(e1);
            e2.connect(p2);
            p2.connect(e2);
            // both directions, both members: requests and ACKs reach the right process
            assertEquals(WcStatus.SUCCESS, p1.write(e1, 1));
            assertEquals(WcStatus.SUCCESS, p2.write(e2, 2));
            assertEquals(WcStatus.SUCCESS, e1.write(p1, 3));
            assertEquals(WcStatus.SUCCESS, e2.write(p2, 4));
            Counters k1 = ((RxeContext) c1).counters();
            Counters k2 = ((RxeContext) c2).counters();
            assertEquals(0, k1.get(Counters.RCVD_DROP_UNKNOWN_QPN), k1.toString());
            assertEquals(0, k2.get(Counters.RCVD_DROP_UNKNOWN_QPN), k2.toString());

            // a QPN in a slot nobody holds: one member gets it and counts it
            unknownQpn(ip(n + "1"), 9 << DeviceShare.SLOT_SHIFT | 5);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (k1.get(Counters.RCVD_DROP_UNKNOWN_QPN) + k2.get(Counters.RCVD_DROP_UNKNOWN_QPN) == 0) {
                assertTrue(System.nanoTime() - deadline < 0, "the unknown QPN was counted by nobody");
                Thread.sleep(5);
            }

            // a third member (slot 2, index 2), with three flows
            RxeDevice a4 = new RxeDevice(pre + "sa4", ip(n + "1"));
            Context c4 = a4.open();
            assertArrayEquals(new int[] {2 << 18, (3 << 18) - 1}, a4.qpnRange());
            End[] e4 = new End[3];
            End[] p4 = new End[3];
            for (int i = 0; i < 3; i++) {
                e4[i] = End.of(c4, arena);
                p4[i] = End.of(cb, arena);
                e4[i].connect(p4[i]);
                p4[i].connect(e4[i]);
                assertEquals(WcStatus.SUCCESS, p4[i].write(e4[i], 10 + i));
            }
            // the first member leaves: the kernel moves the last socket (slot 2) to index 0, and the
            // program must say so (else its flows would go by hash, to either of the two)
            e1.qp.close();
            c1.close();
            assertEquals(WcStatus.SUCCESS, p2.write(e2, 5));
            assertEquals(WcStatus.SUCCESS, e2.write(p2, 6));
            for (int i = 0; i < 3; i++) {
                assertEquals(WcStatus.SUCCESS, p4[i].write(e4[i], 20 + i));
                assertEquals(WcStatus.SUCCESS, e4[i].write(p4[i], 30 + i));
                e4[i].qp.close();
                p4[i].qp.close();
            }
            c4.close();
            // slot 0 is free again: a new member takes it, and both still work
            RxeDevice a3 = new RxeDevice(pre + "sa3", ip(n + "1"));
            try (Context c3 = a3.open()) {
                assertArrayEquals(new int[] {17, (1 << 18) - 1}, a3.qpnRange());
                End e3 = End.of(c3, arena);
                End p3 = End.of(cb, arena);
                e3.connect(p3);
                p3.connect(e3);
                assertEquals(WcStatus.SUCCESS, p3.write(e3, 7));
                assertEquals(WcStatus.SUCCESS, e3.write(p3, 8));
                assertEquals(WcStatus.SUCCESS, p2.write(e2, 9));
                e3.qp.close();
                p3.qp.close();
            }
            e2.qp.close();
            c2.close();
            p1.qp.close();
            p2.qp.close();
        }
    }

    /** Sends an RC SEND ONLY with a correct ICRC to {@code qpn} of the device on {@code to}, from another address. */
    static void unknownQpn(InetAddress to, int qpn) throws Exception {
        int len = 12 + 4 + 4; // BTH, 4 bytes of payload, ICRC
        byte[] src = to.getAddress().clone();
        src[3] = 3;
        InetAddress from = InetAddress.getByAddress(src);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(from, 0));
            int sport = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            org.jrdma.rocev2.wire.PacketBuffer pb = org.jrdma.rocev2.wire.PacketBuffer.allocate(64);
            MemorySegment s = pb.seg;
            s.fill((byte) 0);
            s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x04); // RC SEND Only
            s.set(ValueLayout.JAVA_BYTE, 2, (byte) 0xFF); // P_Key
            s.set(ValueLayout.JAVA_BYTE, 3, (byte) 0xFF);
            s.set(ValueLayout.JAVA_BYTE, 5, (byte) (qpn >>> 16));
            s.set(ValueLayout.JAVA_BYTE, 6, (byte) (qpn >>> 8));
            s.set(ValueLayout.JAVA_BYTE, 7, (byte) qpn);
            // Identification 0: the receiver solves for it (UDP mode), so any real value passes
            int icrc = new org.jrdma.rocev2.wire.Icrc().ipv4(ByteBuffer.wrap(from.getAddress()).getInt(),
                    ByteBuffer.wrap(to.getAddress()).getInt(), 0, 0x4000, sport, 4791, pb, 0, len - 4);
            org.jrdma.rocev2.wire.Icrc.write(pb, len - 4, icrc);
            byte[] pkt = s.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
            ch.send(ByteBuffer.wrap(pkt), new InetSocketAddress(to, 4791));
        }
    }
}
