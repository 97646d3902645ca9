package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/** UD SEND between two devices: Q_Key, GRH area, source QPN, immediate data (IBTA Vol 1 §9.8.3, §11.4.1.1). */
class UdLoopbackTest {
    @Test
    void sendWithGrhAndImmediate() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "ua" + r + "=127.90." + r + ".1,ub" + r + "=127.90." + r + ".2");
        try (Context ca = Verbs.getDevice("ua" + r).open(); Context cb = Verbs.getDevice("ub" + r).open();
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(16, null), qb = cb.createCq(16, null);
            QueuePair a = ud(pa, qa), b = ud(pb, qb);
            MemorySegment ma = arena.allocate(8192), mb = arena.allocate(4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE), rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 100; i++) {
                ma.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            b.postRecv(new RecvWr().wrId(9).sgList(new Sge(mb.address(), 40 + 1024, rb.lkey())));
            AhAttr ah = new AhAttr().isGlobal(true).portNum(1);
            ah.grh().dgid(cb.queryGid(1, 0)).hopLimit(64);
            AddressHandle h = pa.createAh(ah);
            a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0xabcdef01).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 100, ra.lkey())).ud(h, b.qpNum(), 0x11111111));
            WorkCompletion s = RcLoopbackTest.pollOne(qa);
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            WorkCompletion c = RcLoopbackTest.pollOne(qb);
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(140, c.byteLen());
            assertEquals(a.qpNum(), c.srcQp());
            assertEquals(0xabcdef01, c.immData());
            assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, c.wcFlags());
            // IPv4 GRH area: 20 zero bytes, then the IPv4 header (version 4, IHL 5, protocol UDP, addresses)
            assertEquals(0L, mb.get(ValueLayout.JAVA_LONG, 0));
            assertEquals((byte) 0x45, mb.get(ValueLayout.JAVA_BYTE, 20));
            assertEquals((byte) 17, mb.get(ValueLayout.JAVA_BYTE, 29));
            assertEquals(-1L, ma.asSlice(0, 100).mismatch(mb.asSlice(40, 100)));
            // a wrong Q_Key is dropped; a message over the MTU fails locally with LOC_LEN_ERR
            b.postRecv(new RecvWr().wrId(10).sgList(new Sge(mb.address(), 40 + 1024, rb.lkey())));
            a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 10, ra.lkey())).ud(h, b.qpNum(), 0x22222222));
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(qa).status());
            WorkCompletion[] none = {new WorkCompletion()};
            long t = System.nanoTime() + 200_000_000;
            while (System.nanoTime() < t) {
                assertEquals(0, qb.poll(none), "a packet with the wrong Q_Key must not complete a receive");
            }
            a.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 5000, ra.lkey())).ud(h, b.qpNum(), 0x11111111)); // over the active MTU (4096 on loopback)
            assertEquals(WcStatus.LOC_LEN_ERR, RcLoopbackTest.pollOne(qa).status());
        }
    }

    static QueuePair ud(ProtectionDomain pd, CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.UD);
        ia.cap().maxSendWr(16).maxRecvWr(16);
        QueuePair q = pd.createQp(ia);
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x11111111),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        q.modify(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        return q;
    }
}
