package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.pcap.PcapCheck;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.PacketCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture started and stopped at run time through {@code Context.extension(PacketCapture.class)}
 * holds exactly the packets of the traffic between start and stop (3 per 3000-byte WRITE at MTU
 * 1024 plus one ACK received, on the requester's device), each a RoCE v2 packet whose ICRC the
 * provider-free checker ({@code jrdma pcap-check}) accepts; a second start while one runs is EBUSY.
 */
class PacketCaptureExtensionTest {
    @TempDir
    Path dir;

    @Test
    void aCaptureStartedAtRunTimeHoldsTheTrafficBetweenStartAndStop() throws Exception {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "pa=127.90." + r + ".1,pb=127.90." + r + ".2");
        try (Context ca = Verbs.getDevice("pa").open(); Context cb = Verbs.getDevice("pb").open();
             Arena arena = Arena.ofShared()) {
            PacketCapture cap = ca.extension(PacketCapture.class).orElseThrow();
            assertFalse(cap.capturing());
            assertEquals(0, cap.stop(), "stop without a capture");
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair a = pa.createQp(CountersExtensionTest.rc(qa)), b = pb.createQp(CountersExtensionTest.rc(qb));
            RcLoopbackTest.up(a, b, cb.queryGid(1, 0), Mtu.MTU_1024, 100, 200);
            RcLoopbackTest.up(b, a, ca.queryGid(1, 0), Mtu.MTU_1024, 200, 100);
            MemorySegment ma = arena.allocate(65536, 4096), mb = arena.allocate(65536, 4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            write(a, ma, ra, mb, rb, qa, 0); // before the capture: not in it

            org.jrdma.verbs.ext.HardwareCounters hw = ca.extension(org.jrdma.verbs.ext.HardwareCounters.class).orElseThrow();
            long probes0 = hw.get("tail_loss_probes");
            Path file = dir.resolve("run.pcap");
            cap.start(file);
            assertTrue(cap.capturing());
            VerbsException busy = assertThrows(VerbsException.class, () -> cap.start(dir.resolve("other.pcap")));
            assertEquals(Errno.EBUSY, busy.errno());
            for (int i = 1; i <= 5; i++) {
                write(a, ma, ra, mb, rb, qa, i);
            }
            long frames = cap.stop();
            long probes = hw.get("tail_loss_probes") - probes0;
            assertFalse(cap.capturing());
            write(a, ma, ra, mb, rb, qa, 6); // after the capture: not in it
            // each WRITE: First, Middle, Last sent; the responder ACKs each Last (AckReq) once
            // a tail-loss probe (issue 14) in the window adds its resent packet and maybe an ACK of it
            assertTrue(frames >= 5 * 3 + 5 && frames <= 5 * 3 + 5 + 2 * probes,
                    "frames: 15 request packets sent, 5 ACKs received, " + probes + " tail-loss probes: " + frames);
            assertTrue(Files.size(file) > 24 + 20 * 16, "the file holds the frames");

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int rc = PcapCheck.run(new String[] {file.toString()}, new PrintStream(out, true), new PrintStream(out, true));
            assertEquals(0, rc, "pcap-check of the run-time capture:\n" + out);
            // the file holds exactly the frames the capture counted (20, or more with the probes above)
            assertTrue(out.toString().contains(frames + " frames, " + frames + " RoCE v2 packets"), out.toString());
            assertTrue(out.toString().contains("0 ICRC failures"), out.toString());
            a.close();
            b.close();
        }
    }

    private static void write(QueuePair a, MemorySegment ma, MemoryRegion ra, MemorySegment mb, MemoryRegion rb,
                              CompletionQueue qa, int id) {
        a.postSend(new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(ma.address(), 3000, ra.lkey())).rdma(mb.address(), rb.rkey()));
        assertEquals(WcStatus.SUCCESS, CountersExtensionTest.pollOne(qa).status());
    }
}
