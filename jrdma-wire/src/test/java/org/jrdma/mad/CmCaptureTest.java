package org.jrdma.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.rocev2.pcap.Captures;
import org.jrdma.rocev2.pcap.PcapReader;
import org.jrdma.rocev2.pcap.Captures.RoceFrame;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.Opcode;
import org.junit.jupiter.api.Test;

/**
 * Every CM MAD Linux sent in the reference captures ({@code testdata/captures/rxe-cm-rping.pcap},
 * {@code rxe-cm-write-bw.pcap}): decoded field by field, the values the captures' logs and README name
 * asserted (rping's port 7174 and perftest's 18515, the hosts 10.77.0.11/12, the QPNs perftest printed, the
 * CA GUIDs that are the EUI-64 of the guests' MACs 52:54:00:77:00:1N, the PSNs the RC packets after the
 * handshake carry), and re-encoded from the decoded values through the setters into a zeroed MAD, byte
 * for byte identical to what Linux sent.
 */
class CmCaptureTest {
    private static final InetAddress G1 = ip("10.77.0.11");
    private static final InetAddress G2 = ip("10.77.0.12");
    private static final long GUID_G1 = 0x505400fffe770011L;
    private static final long GUID_G2 = 0x505400fffe770012L;

    /** One CM MAD of a capture: the frame it came in and its 256 bytes. */
    record CmMad(RoceFrame frame, MemorySegment mad) {
        int attributeId() {
            return new MadHeader().wrap(mad, 0).attributeId();
        }

        InetAddress src() {
            return ip(PcapReader.ipv4String(frame.src4()));
        }
    }

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static List<CmMad> cmMads(String file) {
        List<CmMad> out = new ArrayList<>();
        Bth bth = new Bth();
        Deth deth = new Deth();
        for (RoceFrame f : Captures.roceFrames(Captures.file(file))) {
            MemorySegment s = f.buffer().seg;
            bth.wrap(s, 0);
            if (bth.opcode() != Opcode.UD_SEND_ONLY || bth.destQpn() != 1) {
                continue;
            }
            deth.wrap(s, Bth.LENGTH);
            assertEquals(0x80010000, deth.qkey(), f.id() + " Q_Key of QP1");
            assertEquals(1, deth.srcQpn(), f.id() + " source QP");
            int h = Opcode.headerLength(Opcode.UD_SEND_ONLY);
            assertEquals(h + MadHeader.MAD_LENGTH + 4, f.udpPayload().length, f.id() + " one MAD + ICRC");
            MemorySegment mad = Arena.ofAuto().allocate(MadHeader.MAD_LENGTH);
            MemorySegment.copy(s, h, mad, 0, MadHeader.MAD_LENGTH);
            out.add(new CmMad(f, mad));
        }
        return out;
    }

    private static List<Integer> attributes(List<CmMad> mads) {
        return mads.stream().map(CmMad::attributeId).toList();
    }

    @Test
    void rpingHandshakeAndTeardown() {
        List<CmMad> mads = cmMads("rxe-cm-rping.pcap");
        assertEquals(List.of(Cm.ATTR_REQ, Cm.ATTR_REP, Cm.ATTR_RTU, Cm.ATTR_DREQ, Cm.ATTR_DREP), attributes(mads));
        long tid = 0x00000002f3edb682L;
        for (CmMad m : mads) {
            MadHeader h = new MadHeader().wrap(m.mad(), 0);
            assertEquals(1, h.baseVersion());
            assertEquals(MadHeader.MGMT_CLASS_CM, h.mgmtClass());
            assertEquals(Cm.CLASS_VERSION, h.classVersion());
            assertEquals(MadHeader.METHOD_SEND, h.method());
            assertFalse(h.isResponse());
            assertEquals(0, h.status());
            assertEquals(0, h.classSpecific());
            assertEquals(tid, h.transactionId(), "the client's TID; the server answers with the same TID");
            assertEquals(0, h.attributeModifier());
        }
        CmReq req = new CmReq().wrap(mads.get(0).mad(), 0);
        assertEquals(G2, mads.get(0).src());
        assertEquals(0x82b6edf3, req.localCommId());
        assertEquals(CmaHeader.serviceId(CmaHeader.RDMA_PS_TCP, 7174), req.serviceId(), "rping's default port 7174");
        assertEquals(0x0000000001061c06L, req.serviceId());
        assertEquals(GUID_G2, req.localCaGuid());
        assertEquals(0, req.localQKey());
        assertEquals(0x1d, req.localQpn());
        assertEquals(1, req.responderResources());
        assertEquals(1, req.initiatorDepth());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(Cm.TRANSPORT_RC, req.transportServiceType());
        assertFalse(req.endToEndFlowControl());
        assertEquals(0xd4516e, req.startingPsn());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(7, req.retryCount());
        assertEquals(0xffff, req.partitionKey());
        assertEquals(3, req.pathPacketPayloadMtu(), "1024 (the logs' Mtu : 1024[B])");
        assertFalse(req.rdcExists());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(15, req.maxCmRetries());
        assertFalse(req.srq());
        assertEquals(0, req.extendedTransportType());
        assertEquals(0xffff, req.primaryLocalPortLid());
        assertEquals(0xffff, req.primaryRemotePortLid());
        assertArrayEquals(mapped(G2), req.primaryLocalPortGid());
        assertArrayEquals(mapped(G1), req.primaryRemotePortGid());
        assertEquals(0x61b20, req.primaryFlowLabel(), "captures/README: the 20-bit field is 0x61b20");
        assertEquals(0, req.primaryTrafficClass());
        assertEquals(64, req.primaryHopLimit());
        assertEquals(0, req.primarySl());
        assertEquals(19, req.primaryLocalAckTimeout());
        assertEquals(0, req.alternateLocalPortLid());
        assertArrayEquals(new byte[16], req.alternateLocalPortGid());
        CmaHeader cma = new CmaHeader().wrap(mads.get(0).mad(), CmReq.PRIVATE_DATA_OFFSET);
        assertEquals(0, cma.cmaVersion());
        assertEquals(4, cma.ipVersion());
        assertEquals(G2, cma.srcAddress());
        assertEquals(G1, cma.dstAddress());
        assertEquals(0xb5a6, cma.port());
        byte[] user = req.privateData();
        for (int i = CmaHeader.LENGTH; i < user.length; i++) {
            assertEquals(0, user[i], "rping sends no private data of its own");
        }

        CmRep rep = new CmRep().wrap(mads.get(1).mad(), 0);
        assertEquals(G1, mads.get(1).src());
        assertEquals(0x587f98c8, rep.localCommId());
        assertEquals(req.localCommId(), rep.remoteCommId());
        assertEquals(0x1d, rep.localQpn());
        assertEquals(0x9cfe41, rep.startingPsn());
        assertEquals(1, rep.responderResources());
        assertEquals(1, rep.initiatorDepth());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(0, rep.failoverAccepted());
        assertFalse(rep.endToEndFlowControl());
        assertEquals(7, rep.rnrRetryCount());
        assertFalse(rep.srq());
        assertEquals(GUID_G1, rep.localCaGuid());
        assertEquals(0, rep.vendorId());

        CmRtu rtu = new CmRtu().wrap(mads.get(2).mad(), 0);
        assertEquals(req.localCommId(), rtu.localCommId());
        assertEquals(rep.localCommId(), rtu.remoteCommId());

        CmDreq dreq = new CmDreq().wrap(mads.get(3).mad(), 0);
        assertEquals(G2, mads.get(3).src());
        assertEquals(req.localCommId(), dreq.localCommId());
        assertEquals(rep.localCommId(), dreq.remoteCommId());
        assertEquals(rep.localQpn(), dreq.remoteQpnEecn());

        CmDrep drep = new CmDrep().wrap(mads.get(4).mad(), 0);
        assertEquals(G1, mads.get(4).src());
        assertEquals(rep.localCommId(), drep.localCommId());
        assertEquals(req.localCommId(), drep.remoteCommId());

        // Starting PSNs as the RC packets after the handshake show them: each side sends from the PSN
        // of the message it received (the client from the REP's, the server from the REQ's)
        assertEquals(rep.startingPsn(), firstPsn("rxe-cm-rping.pcap", G2, 0x1d));
        assertEquals(req.startingPsn(), firstPsn("rxe-cm-rping.pcap", G1, 0x1d, Opcode.RC_RDMA_READ_REQUEST));
    }

    @Test
    void perftestTwoConnectionsAndTeardown() {
        List<CmMad> mads = cmMads("rxe-cm-write-bw.pcap");
        // README: CM REQ/REP/RTU x2, DREQ x3, DREP x2
        assertEquals(List.of(Cm.ATTR_REQ, Cm.ATTR_REP, Cm.ATTR_RTU, Cm.ATTR_REQ, Cm.ATTR_REP, Cm.ATTR_RTU,
            Cm.ATTR_DREQ, Cm.ATTR_DREQ, Cm.ATTR_DREP, Cm.ATTR_DREQ, Cm.ATTR_DREP), attributes(mads));
        CmReq req = new CmReq().wrap(mads.get(3).mad(), 0);
        assertEquals(CmaHeader.serviceId(CmaHeader.RDMA_PS_TCP, 18515), req.serviceId(), "perftest's port 18515");
        assertTrue(CmaHeader.isIpServiceId(req.serviceId()));
        assertEquals(18515, CmaHeader.port(req.serviceId()));
        assertEquals(CmaHeader.RDMA_PS_TCP, CmaHeader.portSpace(req.serviceId()));
        assertEquals(0x1f, req.localQpn(), "g2's log: local address QPN 0x001f");
        assertEquals(GUID_G2, req.localCaGuid());
        assertEquals(0, req.responderResources());
        assertEquals(0, req.initiatorDepth());
        CmaHeader cma = new CmaHeader().wrap(mads.get(3).mad(), CmReq.PRIVATE_DATA_OFFSET);
        assertEquals(4, cma.ipVersion());
        assertEquals(G2, cma.srcAddress());
        assertEquals(G1, cma.dstAddress());
        CmRep rep = new CmRep().wrap(mads.get(4).mad(), 0);
        assertEquals(0x1f, rep.localQpn(), "g1's log: local address QPN 0x001f");
        assertEquals(req.localCommId(), rep.remoteCommId());
        assertEquals(GUID_G1, rep.localCaGuid());
        assertEquals(rep.startingPsn(), firstPsn("rxe-cm-write-bw.pcap", G2, 0x1f));
        // the first connection (perftest's exchange) is QPN 0x1e; its DREQ comes last, from the server
        CmReq req1 = new CmReq().wrap(mads.get(0).mad(), 0);
        CmRep rep1 = new CmRep().wrap(mads.get(1).mad(), 0);
        assertEquals(0x1e, req1.localQpn());
        CmDreq dreq1 = new CmDreq().wrap(mads.get(9).mad(), 0);
        assertEquals(G1, mads.get(9).src());
        assertEquals(rep1.localCommId(), dreq1.localCommId());
        assertEquals(req1.localCommId(), dreq1.remoteCommId());
        assertEquals(req1.localQpn(), dreq1.remoteQpnEecn());
        assertEquals(rep1.startingPsn(), firstPsn("rxe-cm-write-bw.pcap", G2, 0x1e));
    }

    @Test
    void everyCmMadReEncodesByteForByte() throws Exception {
        int n = 0;
        for (String file : List.of("rxe-cm-rping.pcap", "rxe-cm-write-bw.pcap")) {
            for (CmMad m : cmMads(file)) {
                MemorySegment out = Arena.ofAuto().allocate(MadHeader.MAD_LENGTH);
                out.fill((byte) 0x5a); // clear() must overwrite everything
                MadHeader in = new MadHeader().wrap(m.mad(), 0);
                Class<?> type = switch (in.attributeId()) {
                    case Cm.ATTR_REQ -> CmReq.class;
                    case Cm.ATTR_REP -> CmRep.class;
                    case Cm.ATTR_RTU -> CmRtu.class;
                    case Cm.ATTR_DREQ -> CmDreq.class;
                    case Cm.ATTR_DREP -> CmDrep.class;
                    default -> throw new AssertionError(m.frame().id() + " attribute " + in.attributeId());
                };
                Object src = type.getMethod("wrap", MemorySegment.class, long.class).invoke(
                    type.getConstructor().newInstance(), m.mad(), 0L);
                Object dst = type.getMethod("wrap", MemorySegment.class, long.class).invoke(
                    type.getConstructor().newInstance(), out, 0L);
                type.getMethod("clear", long.class).invoke(dst, in.transactionId());
                int fields = FlyweightFields.copy(type, src, dst);
                assertTrue(fields >= 3, type + " fields " + fields);
                byte[] want = m.mad().toArray(ValueLayout.JAVA_BYTE);
                byte[] got = out.toArray(ValueLayout.JAVA_BYTE);
                assertArrayEquals(want, got, m.frame().id() + " " + type.getSimpleName() + " re-encoded");
                n++;
            }
        }
        assertEquals(16, n);
    }

    @Test
    void cmaHeaderEncodesAsLinux() {
        List<CmMad> mads = cmMads("rxe-cm-rping.pcap");
        MemorySegment out = Arena.ofAuto().allocate(CmaHeader.LENGTH);
        out.fill((byte) 0x5a);
        new CmaHeader().wrap(out, 0).set(G2, 0xb5a6, G1);
        assertArrayEquals(mads.get(0).mad().asSlice(CmReq.PRIVATE_DATA_OFFSET, CmaHeader.LENGTH).toArray(ValueLayout.JAVA_BYTE),
            out.toArray(ValueLayout.JAVA_BYTE));
        InetAddress v6a = ip("fd77::12");
        InetAddress v6b = ip("fd77::11");
        CmaHeader h = new CmaHeader().wrap(out, 0).set(v6a, 1, v6b);
        assertEquals(6, h.ipVersion());
        assertEquals(v6a, h.srcAddress());
        assertEquals(v6b, h.dstAddress());
        assertEquals(0x60, out.get(ValueLayout.JAVA_BYTE, 1));
        // the ::ffff form of an IPv4 address reads as the address
        h.ipVersion(4).srcAddress(v6a);
        out.asSlice(4, 16).copyFrom(MemorySegment.ofArray(mapped(G1)));
        assertEquals(G1, h.srcAddress());
    }

    /** The PSN of the first RC packet from {@code src} to QPN {@code qpn} (of one opcode, if given). */
    private static int firstPsn(String file, InetAddress src, int qpn, int... opcode) {
        Bth bth = new Bth();
        for (RoceFrame f : Captures.roceFrames(Captures.file(file))) {
            bth.wrap(f.buffer().seg, 0);
            if (bth.destQpn() == qpn && ip(PcapReader.ipv4String(f.src4())).equals(src)
                && (opcode.length == 0 || bth.opcode() == opcode[0])) {
                return bth.psn();
            }
        }
        throw new AssertionError("no packet from " + src + " to QPN " + qpn + " in " + file);
    }

    /** An IPv4 address as a ::ffff-mapped GID (RoCE v2, as rxe's GID table holds it). */
    private static byte[] mapped(InetAddress v4) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(v4.getAddress(), 0, g, 12, 4);
        return g;
    }

    /** Copies every field of a flyweight through its public getter/setter pairs. */
    static final class FlyweightFields {
        static List<Method> getters(Class<?> type) {
            List<Method> out = new ArrayList<>();
            for (Method g : type.getMethods()) {
                Class<?> r = g.getReturnType();
                if (g.getParameterCount() == 0 && g.getDeclaringClass() == type
                    && (r == int.class || r == long.class || r == boolean.class || r == byte[].class)) {
                    out.add(g);
                }
            }
            return out;
        }

        static int copy(Class<?> type, Object src, Object dst) throws Exception {
            int n = 0;
            for (Method g : getters(type)) {
                Method s = type.getMethod(g.getName(), g.getReturnType());
                assertNotNull(s);
                s.invoke(dst, g.invoke(src));
                n++;
            }
            return n;
        }
    }
}
