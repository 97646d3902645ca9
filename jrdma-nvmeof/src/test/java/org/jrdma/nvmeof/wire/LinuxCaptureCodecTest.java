package org.jrdma.nvmeof.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each codec of {@code org.jrdma.nvmeof.wire} against Linux's bytes on the wire, from
 * {@code testdata/captures-nvmeof/rxe-nvmeof-rw.pcap} (Linux 6.1 nvme-rdma host ↔ nvmet-rdma target over
 * rxe; frame numbers as tshark shows them). What jrdma encodes must equal Linux's bytes byte for byte; what
 * it decodes must give the values Wireshark's NVMe dissector shows for the same frames (noted per test).
 */
class LinuxCaptureCodecTest {
    /** The REQ's NVMe private data in its MAD: the REQ's private data at 164, after rdma_cm's 36-byte IP header. */
    static final int REQ_NVME_PD = 164 + 36;
    /** The REP's private data at MAD offset 60. */
    static final int REP_NVME_PD = 60;
    static final String SUBNQN = "nqn.2026-01.org.jrdma:lab";
    static final String HOSTNQN = "nqn.2026-01.org.jrdma:g2";

    private static List<LinuxCapture.Packet> ps;

    @BeforeAll
    static void load() throws Exception {
        ps = LinuxCapture.packets();
    }

    private static byte[] bytes(long frame) {
        return LinuxCapture.frame(ps, frame).payload();
    }

    private static byte[] range(byte[] b, int from, int len) {
        return Arrays.copyOfRange(b, from, from + len);
    }

    private static Sqe sqe(byte[] b) {
        return new Sqe().wrap(MemorySegment.ofArray(b.clone()), 0);
    }

    private static Cqe cqe(byte[] b) {
        return new Cqe().wrap(MemorySegment.ofArray(b.clone()), 0);
    }

    private static byte[] built(java.util.function.Consumer<Sqe> fill) {
        byte[] b = new byte[Sqe.SIZE];
        Arrays.fill(b, (byte) 0x5a);   // clear() must zero what the command does not set
        fill.accept(new Sqe().wrap(MemorySegment.ofArray(b), 0));
        return b;
    }

    @Test
    void cmRequestPrivateDataOfTheAdminAndIoQueues() {
        // frame 2: REQ of the admin queue (Wireshark: not dissected); frame 81: of I/O queue 1
        byte[] admin = range(bytes(2), REQ_NVME_PD, RdmaCmRequest.SIZE);
        byte[] io = range(bytes(81), REQ_NVME_PD, RdmaCmRequest.SIZE);
        assertEquals(new RdmaCmRequest(0, 0, 32, 31, 0), RdmaCmRequest.decode(admin));
        assertEquals(new RdmaCmRequest(0, 1, 128, 127, 0), RdmaCmRequest.decode(io));
        assertArrayEquals(admin, RdmaCmRequest.forQueue(0, 32).encode());
        assertArrayEquals(io, RdmaCmRequest.forQueue(1, 128).encode());
    }

    @Test
    void cmReplyPrivateData() {
        // Wireshark: "RDMA QP Controller Receive Queue Size: 32" (frame 3), 128 (frame 82)
        byte[] admin = range(bytes(3), REP_NVME_PD, RdmaCmReply.SIZE);
        byte[] io = range(bytes(82), REP_NVME_PD, RdmaCmReply.SIZE);
        assertEquals(new RdmaCmReply(0, 32), RdmaCmReply.decode(admin));
        assertEquals(new RdmaCmReply(0, 128), RdmaCmReply.decode(io));
        assertArrayEquals(admin, new RdmaCmReply(0, 32).encode());
        assertArrayEquals(io, new RdmaCmReply(0, 128).encode());
    }

    @Test
    void cmRejectRecord() {
        byte[] b = new RdmaCmReject(0, RdmaCmReject.INVALID_HSQSIZE).encode();
        assertArrayEquals(new byte[] {0, 0, 4, 0}, b);
        assertEquals(RdmaCmReject.INVALID_HSQSIZE, RdmaCmReject.decode(b).orElseThrow().status());
        assertTrue(RdmaCmReject.decode(new byte[2]).isEmpty());
    }

    @Test
    void connectCommandAndItsKeyedSgl() {
        // frame 5, Wireshark: Connect, SGL1 type 0x4 sub type 0xf, address 0xff25073f435e4400, length 1024,
        // key 0x0000a407, record format 0, QID 0, SQ size 32 (it prints SQSIZE + 1), KATO 5000 ms
        byte[] linux = bytes(5);
        Sqe s = sqe(linux);
        assertEquals(Opcodes.FABRICS, s.opcode());
        assertEquals(Opcodes.FCTYPE_CONNECT, Fabrics.fctype(s));
        assertEquals(31, Fabrics.connectSqsize(s));
        assertEquals(5000, Fabrics.connectKato(s));
        Sgl g = s.sgl1(new Sgl());
        assertEquals(0xff25073f435e4400L, g.address());
        assertEquals(1024, g.length());
        assertEquals(0xa407, g.key());
        assertEquals(Sgl.TYPE_KEYED_DATA_BLOCK, g.type());
        assertEquals(Sgl.SUBTYPE_INVALIDATE, g.subType());
        assertArrayEquals(linux, built(q -> Fabrics.connect(q, 0, 0, 31, 5000).sgl1(new Sgl())
                .keyed(0xff25073f435e4400L, 1024, 0xa407, Sgl.SUBTYPE_INVALIDATE)));
        // the target's RDMA READ of the data (frame 7): RETH VA and rkey are the SGL's, DMA length 1024
        ByteBuffer reth = ByteBuffer.wrap(LinuxCapture.frame(ps, 7).ext()).order(ByteOrder.BIG_ENDIAN);
        assertEquals(g.address(), reth.getLong(0));
        assertEquals(g.key(), reth.getInt(8));
        assertEquals(1024, reth.getInt(12));
    }

    @Test
    void connectData() {
        // frame 8, the RDMA READ response: host ID, CNTLID 0xffff, SUBNQN, HOSTNQN
        byte[] linux = bytes(8);
        assertEquals(ConnectData.SIZE, linux.length);
        MemorySegment l = MemorySegment.ofArray(linux);
        UUID hostId = ConnectData.hostId(l, 0);
        assertEquals(UUID.fromString("6d1156ee-b480-4f6f-a371-fc9179e7b9aa"), hostId);
        assertEquals(ConnectData.CNTLID_DYNAMIC, ConnectData.cntlid(l, 0));
        assertEquals(SUBNQN, ConnectData.subsysNqn(l, 0));
        assertEquals(HOSTNQN, ConnectData.hostNqn(l, 0));
        byte[] ours = new byte[ConnectData.SIZE];
        Arrays.fill(ours, (byte) 0x5a);
        ConnectData.write(MemorySegment.ofArray(ours), 0, hostId, ConnectData.CNTLID_DYNAMIC, SUBNQN, HOSTNQN);
        assertArrayEquals(linux, ours);
    }

    @Test
    void connectResponseBySendWithInvalidateOfTheSglKey() {
        // frame 9: Send Only Invalidate, IETH 0x0000a407 (the Connect's SGL key), CQE: CNTLID 1 in DW0,
        // SQHD 1, SQID 0, CID 0, status 0
        LinuxCapture.Packet p = LinuxCapture.frame(ps, 9);
        assertEquals(23, p.opcode());
        assertEquals(0xa407, p.ieth());
        Cqe c = cqe(p.payload());
        assertEquals(1, c.dw0() & 0xffff);
        assertEquals(1, c.sqHead());
        assertEquals(0, c.sqId());
        assertEquals(0, c.commandId());
        assertTrue(c.ok());
    }

    @Test
    void propertyGetCapVsCsts() {
        // frame 11: Property Get, 8 bytes, offset 0 (CAP); frame 13: its CQE
        byte[] linux = bytes(11);
        assertArrayEquals(linux, built(q -> Fabrics.propertyGet(q, 1, Properties.CAP, true).sgl1(new Sgl()).none()));
        Sqe s = sqe(linux);
        assertEquals(Opcodes.FCTYPE_PROPERTY_GET, Fabrics.fctype(s));
        assertEquals(Fabrics.SIZE_8, Fabrics.propertyAttrib(s));
        Cqe cap = cqe(bytes(13));
        assertEquals(1, cap.commandId());
        assertEquals(127, Properties.capMqes(cap.result()), "MQES: 128 entries");
        assertEquals(15, Properties.capTimeout(cap.result()), "TO: 7.5 s");
        assertEquals(0, Properties.capMpsmin(cap.result()));
        // frame 37: VS 1.3.0 (Wireshark: Version 0x00010300); frame 33: CSTS.RDY
        assertEquals(0x00010300, cqe(bytes(37)).dw0());
        assertEquals("1.3", Properties.version(cqe(bytes(37)).dw0()));
        assertEquals(Properties.CSTS_RDY, cqe(bytes(33)).dw0() & Properties.CSTS_RDY);
    }

    @Test
    void propertySetCc() {
        // frame 15: Property Set CC = 0x00460060 (IOCQES 4, IOSQES 6, CSS 110b, EN 0); frame 17: CQE CID 0x1000
        byte[] linux = bytes(15);
        assertArrayEquals(linux, built(q -> Fabrics.propertySet(q, 0x1000, Properties.CC, 0x00460060).sgl1(new Sgl()).none()));
        assertEquals(0x00460060L, Fabrics.propertyValue(sqe(linux)));
        assertEquals(Properties.CC_IOSQES | Properties.CC_IOCQES, 0x00460060 & ~0x60);
        assertEquals(0x1000, cqe(bytes(17)).commandId());
    }

    @Test
    void identifyCommands() {
        // frame 39: Identify CNS 1 (controller), CID 6, 4096 bytes at 0xff25073f46f2c000 key 0xa408
        assertArrayEquals(bytes(39), built(q -> Commands.identify(q, 6, Opcodes.CNS_CONTROLLER, 0).sgl1(new Sgl())
                .keyed(0xff25073f46f2c000L, 4096, 0xa408, Sgl.SUBTYPE_INVALIDATE)));
        // frame 104: CNS 2 (active namespace list), CID 0x1009
        assertArrayEquals(bytes(104), built(q -> Commands.identify(q, 0x1009, Opcodes.CNS_ACTIVE_NS_LIST, 0).sgl1(new Sgl())
                .keyed(0xff25073f47266000L, 4096, 0xa40d, Sgl.SUBTYPE_INVALIDATE)));
        // frame 122: CNS 0 (namespace) of NSID 1, CID 0x2007
        assertArrayEquals(bytes(122), built(q -> Commands.identify(q, 0x2007, Opcodes.CNS_NAMESPACE, 1).sgl1(new Sgl())
                .keyed(0xff25073f47261000L, 4096, 0xa40f, Sgl.SUBTYPE_INVALIDATE)));
        // frame 45: its response by Send with Invalidate of key 0xa408
        assertEquals(0xa408, LinuxCapture.frame(ps, 45).ieth());
        assertEquals(6, cqe(LinuxCapture.frame(ps, 45).payload()).commandId());
    }

    @Test
    void identifyControllerData() {
        // frames 41-44: RDMA WRITE First/Middle/Middle/Last. Wireshark: SN e2df468d31f353ec09a6, MN Linux,
        // FR 362e312e302d3537 ("6.1.0-57"), MDTS 8, CNTLID 1, VER 0x00010300, KAS 10, MAXCMD 1024, NN 1024,
        // SGLS 0x00100005, SUBNQN nqn.2026-01.org.jrdma:lab
        byte[] data = LinuxCapture.joined(ps, 41, 44);
        assertEquals(IdentifyController.SIZE, data.length);
        IdentifyController c = IdentifyController.decode(MemorySegment.ofArray(data), 0);
        assertEquals("e2df468d31f353ec09a6", c.sn());
        assertEquals("Linux", c.mn());
        assertEquals("6.1.0-57", c.fr());
        assertEquals(8, c.mdts());
        assertEquals(1, c.cntlid());
        assertEquals(0x00010300, c.ver());
        assertEquals(10, c.kas());
        assertEquals(1024, c.maxcmd());
        assertEquals(1024, c.nn());
        assertEquals(0x00100005, c.sgls());
        assertTrue(c.sglSupported());
        assertTrue(c.keyedSglSupported());
        assertEquals(SUBNQN, c.subnqn());
        assertEquals(0x41, c.ctratt(), "Wireshark: CTRATT 0x00000041");
        assertEquals(0, c.fcatt() & 1, "nvmet: the dynamic controller model");
        // the Linux host put 4 KiB of write data in the capsule (frames 181-185): IOCCSZ covers it
        assertTrue(c.inCapsuleDataSize() >= 4096, "IOCCSZ " + c.ioccsz());
        assertEquals(Cqe.SIZE / 16, c.iorcsz());
    }

    @Test
    void identifyNamespaceData() {
        // frames 124-127. Wireshark: NSZE = NCAP = NUSE = 16384, NLBAF 0, FLBAS 0, LBAF0 lbads 9 ms 0
        IdentifyNamespace n = IdentifyNamespace.decode(MemorySegment.ofArray(LinuxCapture.joined(ps, 124, 127)), 0);
        assertEquals(16384, n.nsze());
        assertEquals(16384, n.ncap());
        assertEquals(16384, n.nuse());
        assertEquals(0, n.nlbaf());
        assertEquals(0, n.formatIndex());
        assertEquals(512, n.blockSize());
        assertEquals(0, n.metadataSize());
        // frames 106-109: the active namespace list holds NSID 1 only
        ByteBuffer list = ByteBuffer.wrap(LinuxCapture.joined(ps, 106, 109)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, list.getInt(0));
        assertEquals(0, list.getInt(4));
    }

    @Test
    void setFeaturesNumberOfQueues() {
        // frame 77: Set Features FID 7, CDW11 0 (one I/O queue); frame 79: DW0 0x007f007f (128 granted of each)
        assertArrayEquals(bytes(77), built(q -> Commands.setNumQueues(q, 0x1006, 1).sgl1(new Sgl()).none()));
        assertEquals(128, Commands.grantedQueues(cqe(bytes(79)).dw0()));
    }

    @Test
    void readCommandAndItsInvalidatingResponse() {
        // frame 140: Read NSID 1, SLBA 0, NLB 7 (8 × 512 bytes), CID 0x71, SGL 4096 bytes key 0xc427 sub type 0xf
        assertArrayEquals(bytes(140), built(q -> Commands.readWrite(q, false, 0x71, 1, 0, 8).sgl1(new Sgl())
                .keyed(0xff25073f472ba000L, 4096, 0xc427, Sgl.SUBTYPE_INVALIDATE)));
        // frames 144-147: the target's RDMA WRITE to that address and key; 148: Send with Invalidate of it
        ByteBuffer reth = ByteBuffer.wrap(LinuxCapture.frame(ps, 144).ext()).order(ByteOrder.BIG_ENDIAN);
        assertEquals(0xff25073f472ba000L, reth.getLong(0));
        assertEquals(0xc427, reth.getInt(8));
        assertEquals(4096, reth.getInt(12));
        LinuxCapture.Packet rsp = LinuxCapture.frame(ps, 148);
        assertEquals(0xc427, rsp.ieth());
        Cqe c = cqe(rsp.payload());
        assertEquals(0x71, c.commandId());
        assertEquals(1, c.sqId());
        assertEquals(2, c.sqHead());
        assertTrue(c.ok());
    }

    @Test
    void writeWithInCapsuleData() {
        // frames 181-185: Send First..Last, 64 + 4096 bytes: Write of 8 blocks with SGL1 an in-capsule data block
        byte[] capsule = LinuxCapture.joined(ps, 181, 185);
        assertEquals(Sqe.SIZE + 4096, capsule.length);
        Sqe s = sqe(Arrays.copyOf(capsule, Sqe.SIZE));
        assertEquals(Opcodes.IO_WRITE, s.opcode());
        assertEquals(7, s.cdw(12));
        Sgl g = s.sgl1(new Sgl());
        assertEquals(Sgl.TYPE_DATA_BLOCK, g.type());
        assertEquals(Sgl.SUBTYPE_OFFSET, g.subType());
        assertEquals(0, g.address());
        assertEquals(4096, g.length());
        int cid = s.commandId();
        assertArrayEquals(Arrays.copyOf(capsule, Sqe.SIZE), built(q -> Commands.readWrite(q, true, cid, 1, 0, 8)
                .sgl1(new Sgl()).inCapsule(0, 4096)));
        for (int i = Sqe.SIZE; i < capsule.length; i++) {
            assertEquals('J', capsule[i]);
        }
    }

    @Test
    void cqeStatusFields() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(16);
            Cqe c = new Cqe().wrap(m, 0).clear();
            // Invalid Field in Command (SCT 0, SC 02h) with DNR: status field (1 << 15) | (0x02 << 1)
            c.statusField(0x8000 | 0x02 << 1);
            assertFalse(c.ok());
            assertEquals(0x02, c.statusCode());
            assertEquals(Cqe.SCT_GENERIC, c.statusCodeType());
            assertTrue(c.dnr());
            assertEquals(0, m.get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}
