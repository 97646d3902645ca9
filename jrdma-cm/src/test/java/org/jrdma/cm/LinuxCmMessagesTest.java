package org.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jrdma.mad.CmRep;
import org.jrdma.mad.CmReq;
import org.jrdma.mad.CmaHeader;
import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.pcap.PcapReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The REQ and REP jrdma's CM sends carry what Linux's rdma_cm puts in them, field by field, golden
 * values from {@code testdata/captures/rxe-cm-rping.pcap} (Linux rping client 10.77.0.12 port
 * 0xb5a6 → server 10.77.0.11:7174): everything but what differs per host or run (communication IDs,
 * GUIDs, QPNs, PSNs, GIDs, the path MTU of the link).
 */
class LinuxCmMessagesTest {
    private static List<byte[]> linuxMads;

    @BeforeAll
    static void load() throws Exception {
        MadFabric.install();
        linuxMads = new ArrayList<>();
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures", "rxe-cm-rping.pcap");
        try (PcapReader r = PcapReader.open(p)) {
            while (r.next()) {
                byte[] d = r.data();
                int udp = r.ipHeaderOffset() + r.ipHeaderLength();
                int bth = udp + 8;
                int destQp = ((d[bth + 5] & 0xff) << 16) | ((d[bth + 6] & 0xff) << 8) | (d[bth + 7] & 0xff);
                if (destQp == 1) {
                    linuxMads.add(Arrays.copyOfRange(d, bth + 12 + 8, bth + 12 + 8 + 256));
                }
            }
        }
        assertEquals(5, linuxMads.size(), "REQ, REP, RTU, DREQ, DREP");
    }

    @BeforeEach
    void reset() {
        MadFabric.INSTANCE.reset();
    }

    private static int sqPsn(org.jrdma.verbs.QueuePair qp) {
        org.jrdma.verbs.QpAttr a = new org.jrdma.verbs.QpAttr();
        qp.query(a, org.jrdma.verbs.QpAttrMask.SQ_PSN);
        return a.sqPsn();
    }

    private static int rqPsn(org.jrdma.verbs.QueuePair qp) {
        org.jrdma.verbs.QpAttr a = new org.jrdma.verbs.QpAttr();
        qp.query(a, org.jrdma.verbs.QpAttrMask.RQ_PSN);
        return a.rqPsn();
    }

    /** The PSN of the first packet of BTH opcode {@code opcode} sent by 10.77.0.{@code srcLastOctet} in the capture. */
    private static int linuxFirstPsn(int srcLastOctet, int opcode) throws Exception {
        Path p = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures", "rxe-cm-rping.pcap");
        try (PcapReader r = PcapReader.open(p)) {
            while (r.next()) {
                byte[] d = r.data();
                int bth = r.ipHeaderOffset() + r.ipHeaderLength() + 8;
                if ((d[r.ipHeaderOffset() + 15] & 0xff) == srcLastOctet && (d[bth] & 0xff) == opcode) {
                    return ((d[bth + 9] & 0xff) << 16) | ((d[bth + 10] & 0xff) << 8) | (d[bth + 11] & 0xff);
                }
            }
        }
        throw new AssertionError("no opcode " + opcode);
    }

    private static CmReq req(byte[] mad) {
        return new CmReq().wrap(MemorySegment.ofArray(mad), 0);
    }

    @Test
    void theReqOfAnRpingConnectHasLinuxsFields() {
        try (EventChannel ch = EventChannel.create(); CmId bound = CmLoopbackTest.serverCmRunning()) {
            CmId c = CmId.create(ch, null, PortSpace.TCP);
            // the client's port of the capture, so that the flow label must come out as Linux's
            c.resolveAddr(new InetSocketAddress(CmLoopbackTest.CLIENT, 0xb5a6),
                    new InetSocketAddress(CmLoopbackTest.SERVER, 7174), CmLoopbackTest.WAIT);
            CmLoopbackTest.expect(ch, CmEventType.ADDR_RESOLVED);
            c.resolveRoute(CmLoopbackTest.WAIT);
            CmLoopbackTest.expect(ch, CmEventType.ROUTE_RESOLVED);
            CmLoopbackTest.qp(c, c.verbs().allocPd());
            c.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
            CmLoopbackTest.expect(ch, CmEventType.REJECTED);   // nobody listens: only the REQ matters here
            byte[] ours = MadFabric.INSTANCE.sent(CmReq.ATTRIBUTE_ID).getFirst().mad();
            CmReq j = req(ours);
            CmReq l = req(linuxMads.get(0));
            MadHeader jh = new MadHeader().wrap(MemorySegment.ofArray(ours), 0);
            MadHeader lh = new MadHeader().wrap(MemorySegment.ofArray(linuxMads.get(0)), 0);
            assertEquals(lh.baseVersion(), jh.baseVersion());
            assertEquals(lh.mgmtClass(), jh.mgmtClass());
            assertEquals(lh.classVersion(), jh.classVersion());
            assertEquals(lh.method(), jh.method());
            assertEquals(lh.attributeId(), jh.attributeId());
            assertEquals(lh.transactionId() >>> 32, jh.transactionId() >>> 32, "hi_tid");
            assertEquals(Integer.reverseBytes(l.localCommId()), (int) lh.transactionId(), "Linux: TID low = local comm ID byte-swapped");
            assertEquals(Integer.reverseBytes(j.localCommId()), (int) jh.transactionId());
            assertEquals(l.serviceId(), j.serviceId());
            assertEquals(l.localQKey(), j.localQKey());
            assertEquals(l.responderResources(), j.responderResources());
            assertEquals(l.initiatorDepth(), j.initiatorDepth());
            assertEquals(l.remoteCmResponseTimeout(), j.remoteCmResponseTimeout());
            assertEquals(l.transportServiceType(), j.transportServiceType());
            assertEquals(l.endToEndFlowControl(), j.endToEndFlowControl());
            assertEquals(l.localCmResponseTimeout(), j.localCmResponseTimeout());
            assertEquals(l.retryCount(), j.retryCount());
            assertEquals(l.partitionKey(), j.partitionKey());
            assertEquals(l.rdcExists(), j.rdcExists());
            assertEquals(l.rnrRetryCount(), j.rnrRetryCount());
            assertEquals(l.maxCmRetries(), j.maxCmRetries());
            assertEquals(l.srq(), j.srq());
            assertEquals(l.extendedTransportType(), j.extendedTransportType());
            assertEquals(l.primaryLocalPortLid(), j.primaryLocalPortLid());
            assertEquals(l.primaryRemotePortLid(), j.primaryRemotePortLid());
            assertEquals(0x61b20, l.primaryFlowLabel(), "(0xb5a6 × 31 + 7174) mod 2^20");
            assertEquals(l.primaryFlowLabel(), j.primaryFlowLabel());
            assertEquals(l.primaryPacketRate(), j.primaryPacketRate());
            assertEquals(l.primaryTrafficClass(), j.primaryTrafficClass());
            assertEquals(l.primaryHopLimit(), j.primaryHopLimit());
            assertEquals(l.primarySl(), j.primarySl());
            assertEquals(l.primarySubnetLocal(), j.primarySubnetLocal());
            assertEquals(l.primaryLocalAckTimeout(), j.primaryLocalAckTimeout());
            assertEquals(l.alternateLocalPortLid(), j.alternateLocalPortLid());
            assertTrue(Arrays.equals(l.alternateLocalPortGid(), j.alternateLocalPortGid()));
            assertEquals(l.alternateLocalAckTimeout(), j.alternateLocalAckTimeout());
            CmaHeader lc = new CmaHeader().wrap(l.privateDataSegment(), 0);
            CmaHeader jc = new CmaHeader().wrap(j.privateDataSegment(), 0);
            assertEquals(lc.cmaVersion(), jc.cmaVersion());
            assertEquals(lc.ipVersion(), jc.ipVersion());
            assertEquals(lc.port(), jc.port());
            assertEquals(CmLoopbackTest.CLIENT, jc.srcAddress());
            assertEquals(CmLoopbackTest.SERVER, jc.dstAddress());
            assertTrue(Arrays.equals(Arrays.copyOfRange(l.privateData(), 36, 92), Arrays.copyOfRange(j.privateData(), 36, 92)),
                    "no user private data: zeros");
            assertEquals(j.primaryLocalPortGid().length, 16);
            assertNotNull(j.primaryRemotePortGid());
            c.destroy();
        }
    }

    @Test
    void theRepOfAnAcceptWithoutParametersHasLinuxsFields() throws Exception {
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            int port = 7175;
            CmId listener = CmLoopbackTest.listen(sch, port);
            CmId c = CmLoopbackTest.resolved(cch, port);
            CmLoopbackTest.qp(c, c.verbs().allocPd());
            c.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
            CmId s = CmLoopbackTest.expect(sch, CmEventType.CONNECT_REQUEST).id();
            CmLoopbackTest.qp(s, s.verbs().allocPd());
            s.accept(null);   // rping's server: rdma_accept(id, NULL)
            CmLoopbackTest.expect(cch, CmEventType.ESTABLISHED);
            CmRep j = new CmRep().wrap(MemorySegment.ofArray(MadFabric.INSTANCE.sent(CmRep.ATTRIBUTE_ID).getFirst().mad()), 0);
            CmRep l = new CmRep().wrap(MemorySegment.ofArray(linuxMads.get(1)), 0);
            assertEquals(l.localQKey(), j.localQKey());
            assertEquals(l.responderResources(), j.responderResources());
            assertEquals(l.initiatorDepth(), j.initiatorDepth());
            assertEquals(l.targetAckDelay(), j.targetAckDelay());
            assertEquals(l.failoverAccepted(), j.failoverAccepted());
            assertEquals(l.endToEndFlowControl(), j.endToEndFlowControl());
            assertEquals(l.rnrRetryCount(), j.rnrRetryCount());
            assertEquals(l.srq(), j.srq());
            assertTrue(Arrays.equals(l.privateData(), j.privateData()));
            // each side announces the PSN it expects: in rxe-cm-rping.pcap the client's first SEND carries
            // the REP's starting PSN (frames 2 and 4) and the server's first READ the REQ's (frames 1 and 6)
            CmReq jr = req(MadFabric.INSTANCE.sent(CmReq.ATTRIBUTE_ID).getFirst().mad());
            assertEquals(l.startingPsn(), linuxFirstPsn(12, 4), "Linux: the client sends with the REP's PSN");
            assertEquals(req(linuxMads.get(0)).startingPsn(), linuxFirstPsn(11, 12), "the server with the REQ's");
            assertEquals(j.startingPsn(), sqPsn(c.qp()), "the client's send PSN is the REP's");
            assertEquals(jr.startingPsn(), sqPsn(s.qp()), "the server's send PSN is the REQ's");
            assertEquals(jr.startingPsn(), rqPsn(c.qp()));
            assertEquals(j.startingPsn(), rqPsn(s.qp()));
            c.destroy();
            s.destroy();
            listener.destroy();
        }
    }
}
