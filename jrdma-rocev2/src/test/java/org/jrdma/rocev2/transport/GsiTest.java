package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.mad.Cm;
import org.jrdma.mad.CmReq;
import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.pcap.PcapReader;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAgent;
import org.jrdma.verbs.ext.ManagementDatagrams.MadHandler;
import org.junit.jupiter.api.Test;

/**
 * QP1 of the soft RoCE v2 device through {@code ManagementDatagrams}: two devices exchange MADs; requests
 * are resent with their TID and time out, cancel and modify act; what no agent serves is answered exactly
 * as Linux answered {@code roce.py mad-ping} in {@code testdata/captures/host-mad-ping.pcap}; hostile MADs
 * are dropped and counted by reason and the device goes on.
 */
class GsiTest {
    private static final int VENDOR_CLASS = 0x0A; // any non-SMI class no one else uses here

    /** A handler that records what it gets. */
    static final class Recorder implements MadHandler {
        final List<byte[]> mads = new CopyOnWriteArrayList<>();
        final List<MadAddress> from = new CopyOnWriteArrayList<>();
        final List<Long> failed = new CopyOnWriteArrayList<>();
        volatile MadAgent agent;
        volatile boolean answerGets;
        volatile boolean throwing;

        @Override
        public void received(MadAddress f, MemorySegment mad) {
            mads.add(mad.toArray(ValueLayout.JAVA_BYTE));
            from.add(f);
            if (throwing) {
                throw new IllegalStateException("a handler that throws");
            }
            if (answerGets && (mad.get(ValueLayout.JAVA_BYTE, 3) & 0xFF) == MadHeader.METHOD_GET) {
                MemorySegment resp = Arena.ofAuto().allocate(256);
                resp.copyFrom(mad);
                new MadHeader().wrap(resp, 0).method(MadHeader.METHOD_GET_RESP);
                agent.send(f, resp, 0, 0); // a handler may send
            }
        }

        @Override
        public void sendFailed(long tid) {
            failed.add(tid);
        }
    }

    record Pair(String a, String b, String addrA, String addrB) {
        static Pair fresh(String tag, int second) {
            int r = ThreadLocalRandom.current().nextInt(1, 250);
            Pair p = new Pair(tag + "a" + r, tag + "b" + r, "127.61." + second + "." + r, "127.62." + second + "." + r);
            System.setProperty("jrdma.devices", p.a + "=" + p.addrA + "," + p.b + "=" + p.addrB);
            return p;
        }
    }

    private static MemorySegment mad(int cls, int version, int method, long tid, int attr) {
        MemorySegment m = Arena.ofAuto().allocate(256);
        new MadHeader().wrap(m, 0).baseVersion(1).mgmtClass(cls).classVersion(version).method(method)
            .transactionId(tid).attributeId(attr);
        for (int i = 24; i < 256; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        return m;
    }

    private static ManagementDatagrams gsi(Context c) {
        return c.extension(ManagementDatagrams.class).orElseThrow();
    }

    private static MadAddress gsiOf(Context c) {
        return MadAddress.gsi(c.queryGid(1, 0));
    }

    private static Counters counters(Context c) {
        return ((RxeContext) c).counters();
    }

    private static void await(String what, java.util.function.BooleanSupplier ok) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!ok.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 5 s: " + what);
            Thread.sleep(1);
        }
    }

    @Test
    void twoDevicesExchangeMadsOnQp1() throws Exception {
        Pair p = Pair.fresh("gx", 1);
        try (Context ca = Verbs.getDevice(p.a).open(); Context cb = Verbs.getDevice(p.b).open()) {
            Recorder ra = new Recorder(), rb = new Recorder();
            try (MadAgent aa = gsi(ca).register(1, MadHeader.MGMT_CLASS_CM, Cm.CLASS_VERSION, ra, MadHeader.METHOD_SEND);
                 MadAgent ab = gsi(cb).register(1, MadHeader.MGMT_CLASS_CM, Cm.CLASS_VERSION, rb, MadHeader.METHOD_SEND)) {
                MemorySegment req = mad(MadHeader.MGMT_CLASS_CM, 2, MadHeader.METHOD_SEND, 0x0000000200000001L, Cm.ATTR_REQ);
                new CmReq().wrap(req, 0).localQpn(0x123456).startingPsn(0xabcdef);
                aa.send(gsiOf(cb), req, 0, 0);
                await("B gets the REQ", () -> rb.mads.size() == 1);
                assertArrayEquals(req.toArray(ValueLayout.JAVA_BYTE), rb.mads.get(0), "the 256 bytes as sent");
                MadAddress from = rb.from.get(0);
                assertEquals(ca.queryGid(1, 0), from.gid());
                assertEquals(1, from.remoteQpn());
                assertEquals(ManagementDatagrams.GSI_QKEY, from.remoteQkey());
                // B answers to the address it got
                MemorySegment rep = mad(MadHeader.MGMT_CLASS_CM, 2, MadHeader.METHOD_SEND, 0x0000000200000001L, Cm.ATTR_REP);
                ab.send(from, rep, 0, 0);
                await("A gets the REP", () -> ra.mads.size() == 1);
                assertArrayEquals(rep.toArray(ValueLayout.JAVA_BYTE), ra.mads.get(0));
                assertEquals(cb.queryGid(1, 0), ra.from.get(0).gid());
                assertEquals(1L, counters(cb).get(Counters.GSI_RCVD_MADS));
                assertEquals(1L, counters(ca).get(Counters.GSI_SENT_MADS));
            }
            // Get/GetResp on another class: the response ends the request's retries
            Recorder ga = new Recorder(), gb = new Recorder();
            gb.answerGets = true;
            try (MadAgent aa = gsi(ca).register(1, VENDOR_CLASS, 1, ga);
                 MadAgent ab = gsi(cb).register(1, VENDOR_CLASS, 1, gb, MadHeader.METHOD_GET)) {
                gb.agent = ab;
                MemorySegment get = mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, 0x77L, 0x10);
                aa.send(gsiOf(cb), get, 300, 3);
                await("A gets the GetResp", () -> ga.mads.size() == 1);
                assertEquals(MadHeader.METHOD_GET_RESP, ga.mads.get(0)[3] & 0xFF);
                Thread.sleep(700);
                assertEquals(1, gb.mads.size(), "answered: never resent");
                assertEquals(0L, counters(ca).get(Counters.GSI_RESENT_MADS));
                assertEquals(List.of(), ga.failed);
                // a second GetResp with that TID is unsolicited now
                long before = counters(ca).get(Counters.GSI_DROP_UNSOLICITED);
                MemorySegment again = mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET_RESP, 0x77L, 0x10);
                ab.send(gsiOf(ca), again, 0, 0);
                await("the late GetResp is dropped", () -> counters(ca).get(Counters.GSI_DROP_UNSOLICITED) == before + 1);
                assertEquals(1, ga.mads.size());
            }
        }
    }

    @Test
    void requestsAreResentWithTheirTidThenTimeOut() throws Exception {
        Pair p = Pair.fresh("gr", 2);
        try (Context ca = Verbs.getDevice(p.a).open(); Context cb = Verbs.getDevice(p.b).open()) {
            Recorder ra = new Recorder(), rb = new Recorder();
            try (MadAgent aa = gsi(ca).register(1, VENDOR_CLASS, 1, ra);
                 MadAgent ab = gsi(cb).register(1, VENDOR_CLASS, 1, rb)) {
                long tid = 0x0000000512345678L;
                MemorySegment get = mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, tid, 0x10);
                long t0 = System.nanoTime();
                aa.send(gsiOf(cb), get, 60, 2);
                await("sendFailed", () -> ra.failed.size() == 1);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(List.of(tid), ra.failed);
                assertEquals(3, rb.mads.size(), "the first send and two retries");
                for (byte[] m : rb.mads) {
                    assertArrayEquals(get.toArray(ValueLayout.JAVA_BYTE), m, "each retry: the same bytes, same TID");
                }
                assertTrue(ms >= 180, "3 tries of 60 ms: " + ms + " ms");
                assertEquals(2L, counters(ca).get(Counters.GSI_RESENT_MADS));
                assertEquals(1L, counters(ca).get(Counters.GSI_SEND_TIMEOUTS));
                Thread.sleep(200);
                assertEquals(3, rb.mads.size(), "nothing after the timeout");
                assertEquals(1, ra.failed.size());
            }
        }
    }

    @Test
    void cancelAndModify() throws Exception {
        Pair p = Pair.fresh("gc", 3);
        try (Context ca = Verbs.getDevice(p.a).open(); Context cb = Verbs.getDevice(p.b).open()) {
            Recorder ra = new Recorder(), rb = new Recorder();
            try (MadAgent aa = gsi(ca).register(1, VENDOR_CLASS, 1, ra);
                 MadAgent ab = gsi(cb).register(1, VENDOR_CLASS, 1, rb)) {
                // cancel: sent once, never again, no sendFailed
                aa.send(gsiOf(cb), mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, 1L, 0x10), 50, 5);
                aa.cancel(1L);
                await("B gets it once", () -> rb.mads.size() == 1);
                Thread.sleep(400);
                assertEquals(1, rb.mads.size());
                assertEquals(List.of(), ra.failed);

                // modify (an MRA): 50 ms per try becomes 500 ms from now
                long t0 = System.nanoTime();
                aa.send(gsiOf(cb), mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, 2L, 0x10), 50, 0);
                aa.modify(2L, 500);
                Thread.sleep(250);
                assertEquals(List.of(), ra.failed, "still waiting after 250 ms");
                await("sendFailed after the new timeout", () -> ra.failed.size() == 1);
                assertTrue((System.nanoTime() - t0) / 1_000_000 >= 490);
                assertEquals(List.of(2L), ra.failed);

                // modify to 0 cancels, as ib_modify_mad; modify/cancel of an unknown TID is nothing
                aa.send(gsiOf(cb), mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, 3L, 0x10), 50, 1);
                aa.modify(3L, 0);
                aa.cancel(99L);
                aa.modify(98L, 10);
                Thread.sleep(300);
                assertEquals(1, ra.failed.size());

                // closing the agent cancels its requests
                aa.send(gsiOf(cb), mad(VENDOR_CLASS, 1, MadHeader.METHOD_GET, 4L, 0x10), 50, 0);
                aa.close();
                Thread.sleep(300);
                assertEquals(1, ra.failed.size());
                assertThrows(VerbsException.class, () -> aa.send(gsiOf(cb), mad(VENDOR_CLASS, 1, 1, 5L, 0x10), 0, 0));
            }
        }
    }

    @Test
    void registrationRules() {
        Pair p = Pair.fresh("gg", 4);
        try (Context ca = Verbs.getDevice(p.a).open()) {
            ManagementDatagrams m = gsi(ca);
            Recorder r = new Recorder();
            assertErrno(Errno.EINVAL, () -> m.register(2, VENDOR_CLASS, 1, r));
            assertErrno(Errno.EINVAL, () -> m.register(1, 0x01, 1, r));
            assertErrno(Errno.EINVAL, () -> m.register(1, 0x81, 1, r));
            assertErrno(Errno.EINVAL, () -> m.register(1, VENDOR_CLASS, 256, r));
            assertErrno(Errno.EINVAL, () -> m.register(1, VENDOR_CLASS, 1, r, 0x81));
            assertErrno(Errno.EINVAL, () -> m.register(1, VENDOR_CLASS, 1, null));
            try (MadAgent a = m.register(1, VENDOR_CLASS, 1, r, MadHeader.METHOD_GET)) {
                assertErrno(Errno.EBUSY, () -> m.register(1, VENDOR_CLASS, 1, r, MadHeader.METHOD_GET, 0x03));
                assertErrno(Errno.EBUSY, () -> m.register(1, VENDOR_CLASS, 1, r));
                try (MadAgent other = m.register(1, VENDOR_CLASS, 1, r, MadHeader.METHOD_SET);
                     MadAgent v2 = m.register(1, VENDOR_CLASS, 2, r)) {
                    assertNotNull(other);
                    assertNotNull(v2);
                }
                MadAddress v6 = MadAddress.gsi(Gid.of(InetAddress.ofLiteral("fd77::1")));
                assertErrno(Errno.EINVAL, () -> a.send(v6, mad(VENDOR_CLASS, 1, 1, 1, 1), 0, 0));
                assertErrno(Errno.EINVAL, () -> a.send(gsiOf(ca), Arena.ofAuto().allocate(100), 0, 0));
                assertErrno(Errno.EINVAL, () -> a.send(gsiOf(ca), mad(VENDOR_CLASS, 1, 1, 1, 1), -1, 0));
                assertErrno(Errno.EINVAL, () -> a.send(new MadAddress(ca.queryGid(1, 0), 1 << 24, 0, 0, 0, 0, 64),
                    mad(VENDOR_CLASS, 1, 1, 1, 1), 0, 0));
            }
            try (MadAgent again = m.register(1, VENDOR_CLASS, 1, r)) {
                assertNotNull(again, "a closed agent's class is free again");
            }
        }
    }

    private static void assertErrno(int errno, Runnable r) {
        VerbsException e = assertThrows(VerbsException.class, r::run);
        assertEquals(errno, e.errno(), e.getMessage());
    }

    // ------------------------------------------------------------------ against Linux's bytes

    /** The UDP payloads of the frames of host-mad-ping.pcap (frame numbers from 1). */
    static List<byte[]> madPingPayloads() throws Exception {
        Path f = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures", "host-mad-ping.pcap");
        List<byte[]> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(f)) {
            while (r.next()) {
                out.add(r.isUdp() ? Arrays.copyOfRange(r.data(), r.udpPayloadOffset(),
                    r.udpPayloadOffset() + r.udpPayloadLength()) : null);
            }
        }
        return out;
    }

    /** A peer that is not jrdma: a plain UDP socket on port 4791 of its own address. */
    static final class RawPeer implements AutoCloseable {
        final DatagramSocket socket;
        final int self;
        final int device;
        final Icrc icrc = new Icrc();

        RawPeer(String selfAddr, String deviceAddr) throws Exception {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral(selfAddr), 4791));
            socket.setSoTimeout(3000);
            self = ByteBuffer.wrap(InetAddress.ofLiteral(selfAddr).getAddress()).getInt();
            device = ByteBuffer.wrap(InetAddress.ofLiteral(deviceAddr).getAddress()).getInt();
        }

        /** Sends {@code payload} (BTH .. MAD; its last 4 bytes are replaced by the ICRC for these addresses). */
        void send(byte[] payload) throws Exception {
            PacketBuffer b = PacketBuffer.allocate(payload.length);
            MemorySegment.copy(payload, 0, b.seg, ValueLayout.JAVA_BYTE, 0, payload.length);
            int len = payload.length - 4;
            Icrc.write(b, len, icrc.ipv4(self, device, 0, 0x4000, 4791, 4791, b, 0, len));
            byte[] out = b.seg.asSlice(0, payload.length).toArray(ValueLayout.JAVA_BYTE);
            socket.send(new DatagramPacket(out, out.length,
                new InetSocketAddress(InetAddress.getByAddress(ByteBuffer.allocate(4).putInt(device).array()), 4791)));
        }

        /** Sends {@code payload} as it is, ICRC included. */
        void sendRaw(byte[] payload) throws Exception {
            socket.send(new DatagramPacket(payload, payload.length,
                new InetSocketAddress(InetAddress.getByAddress(ByteBuffer.allocate(4).putInt(device).array()), 4791)));
        }

        /** The next datagram, or null within 3 s. */
        DatagramPacket receive() throws Exception {
            DatagramPacket d = new DatagramPacket(new byte[2048], 2048);
            try {
                socket.receive(d);
                return d;
            } catch (SocketTimeoutException e) {
                return null;
            }
        }

        /** Whether the ICRC of a received payload is right for some IPv4 Identification (DF set). */
        boolean icrcOk(DatagramPacket d) {
            PacketBuffer b = PacketBuffer.allocate(d.getLength());
            MemorySegment.copy(d.getData(), 0, b.seg, ValueLayout.JAVA_BYTE, 0, d.getLength());
            int len = d.getLength() - 4;
            return icrc.solveIpv4Id(device, self, 0x4000, d.getPort(), 4791, b, 0, len, Icrc.read(b, len)) >= 0;
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    @Test
    void whatNoAgentServesIsAnsweredAsLinuxAnswersMadPing() throws Exception {
        List<byte[]> frames = madPingPayloads();
        byte[] ping = frames.get(0); // frame 1: host -> g1, CM Get(ClassPortInfo), IPv4
        byte[] linux = frames.get(1); // frame 2: g1's answer
        assertEquals(0x81, linux[Gsi.MAD_OFFSET + 3] & 0xFF);
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = "gp" + r, addr = "127.63.5." + r, peerAddr = "127.63.6." + r;
        System.setProperty("jrdma.devices", dev + "=" + addr);
        try (Context c = Verbs.getDevice(dev).open(); RawPeer peer = new RawPeer(peerAddr, addr)) {
            for (int round = 0; round < 2; round++) {
                // round 0: no agent at all; round 1: a CM agent registered for Send only, as Linux's ib_cm
                MadAgent cm = round == 0 ? null
                    : gsi(c).register(1, MadHeader.MGMT_CLASS_CM, Cm.CLASS_VERSION, new Recorder(), MadHeader.METHOD_SEND);
                peer.send(ping);
                DatagramPacket d = peer.receive();
                assertNotNull(d, "an answer to mad-ping");
                byte[] got = Arrays.copyOf(d.getData(), d.getLength());
                assertEquals(linux.length, got.length, "UDP payload length");
                assertEquals(55410, d.getPort(), "QP1's UDP source port, as rxe (SourcePort.datagram(1))");
                // BTH but its PSN (bytes 9..11: each QP1 counts its own), DETH and the 256 MAD bytes: Linux's
                assertArrayEquals(Arrays.copyOfRange(linux, 0, 9), Arrays.copyOfRange(got, 0, 9), "BTH up to the PSN");
                assertArrayEquals(Arrays.copyOfRange(linux, 12, linux.length - 4), Arrays.copyOfRange(got, 12, got.length - 4),
                    "DETH and the MAD as Linux answered");
                assertTrue(peer.icrcOk(d), "ICRC");
                assertEquals(round + 1L, counters(c).get(Counters.GSI_UNSUPPORTED_ANSWERS));
                if (cm != null) {
                    cm.close();
                }
            }
            // a Send nobody serves: no answer (Linux answers only Get and Set), counted
            byte[] send = ping.clone();
            send[Gsi.MAD_OFFSET + 3] = MadHeader.METHOD_SEND;
            send[Gsi.MAD_OFFSET + 16] = 0;
            send[Gsi.MAD_OFFSET + 17] = (byte) Cm.ATTR_REQ;
            peer.send(send);
            await("dropped as no agent", () -> counters(c).get(Counters.GSI_DROP_NO_AGENT) == 1);
            assertEquals(0L, counters(c).get(Counters.RCVD_DROP_INTERNAL));
        }
    }

    @Test
    void hostileMadsAreDroppedAndCountedAndQp1GoesOn() throws Exception {
        byte[] ping = madPingPayloads().get(0);
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = "gh" + r, addr = "127.64.5." + r, peerAddr = "127.64.6." + r;
        System.setProperty("jrdma.devices", dev + "=" + addr);
        try (Context c = Verbs.getDevice(dev).open(); RawPeer peer = new RawPeer(peerAddr, addr)) {
            Counters n = counters(c);
            Recorder thrower = new Recorder();
            thrower.throwing = true;
            MadAgent vendor = gsi(c).register(1, VENDOR_CLASS, 1, thrower);

            byte[] qkey = ping.clone();
            qkey[Bth.LENGTH + 3] = 1; // Q_Key 0x80010001
            expectDrop(peer, qkey, n, Counters.GSI_DROP_BAD_QKEY);

            byte[] shortMad = Arrays.copyOf(ping, Gsi.MAD_OFFSET + 100 + 4);
            expectDrop(peer, shortMad, n, Counters.GSI_DROP_BAD_LENGTH);

            byte[] rc = ping.clone();
            rc[0] = Opcode.RC_SEND_ONLY; // RC to QPN 1 (no DETH expected: the MAD starts 8 bytes early)
            expectDrop(peer, rc, n, Counters.GSI_DROP_BAD_OPCODE);

            byte[] base = ping.clone();
            base[Gsi.MAD_OFFSET] = 2;
            expectDrop(peer, base, n, Counters.GSI_DROP_BAD_BASE_VERSION);

            byte[] smi = ping.clone();
            smi[Gsi.MAD_OFFSET + 1] = (byte) MadHeader.MGMT_CLASS_SUBN_DIRECTED_ROUTE;
            expectDrop(peer, smi, n, Counters.GSI_DROP_SMI_CLASS);

            byte[] cmGet = ping.clone(); // a Get of the CM's REQ attribute: only ClassPortInfo may be other than Send
            cmGet[Gsi.MAD_OFFSET + 17] = (byte) Cm.ATTR_REQ;
            expectDrop(peer, cmGet, n, Counters.GSI_DROP_BAD_CM_METHOD);

            byte[] resp = ping.clone(); // a GetResp nobody asked for
            resp[Gsi.MAD_OFFSET + 1] = VENDOR_CLASS;
            resp[Gsi.MAD_OFFSET + 2] = 1;
            resp[Gsi.MAD_OFFSET + 3] = (byte) MadHeader.METHOD_GET_RESP;
            expectDrop(peer, resp, n, Counters.GSI_DROP_UNSOLICITED);

            byte[] toThrower = ping.clone();
            toThrower[Gsi.MAD_OFFSET + 1] = VENDOR_CLASS;
            toThrower[Gsi.MAD_OFFSET + 2] = 1;
            expectDrop(peer, toThrower, n, Counters.GSI_DROP_HANDLER_ERROR);
            assertEquals(1, thrower.mads.size());

            byte[] pkey = ping.clone();
            pkey[2] = 0x12; // P_Key 0x12FF: not in the P_Key table
            expectDrop(peer, pkey, n, Counters.RCVD_DROP_BAD_PKEY);

            long badIcrc = n.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC);
            peer.sendRaw(ping); // the capture's ICRC is for the lab's addresses, not these
            await("bad ICRC", () -> n.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC) == badIcrc + 1);
            vendor.close();

            // and QP1 still works: the Get is answered
            long answers = n.get(Counters.GSI_UNSUPPORTED_ANSWERS);
            peer.send(ping);
            assertNotNull(peer.receive());
            assertEquals(answers + 1, n.get(Counters.GSI_UNSUPPORTED_ANSWERS));
            assertEquals(0L, n.get(Counters.RCVD_DROP_INTERNAL), "nothing escaped into the I/O loop's error path");
            // no answers to the dropped ones
            assertEquals(answers + 1, n.get(Counters.GSI_SENT_MADS));
        }
    }

    private static void expectDrop(RawPeer peer, byte[] payload, Counters n, int counter) throws Exception {
        long before = n.get(counter);
        peer.send(payload);
        await(Counters.name(counter), () -> n.get(counter) == before + 1);
    }
}
