package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.rocev2.pcap.PcapCheck;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The device's capture option records what it sends and receives, as pcap-check and Wireshark read it. */
class PcapTapTest {
    @Test
    void captureOfAnRcExchangePassesPcapCheck(@TempDir Path dir) throws Exception {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = "pa" + r, b = "pb" + r;
        Path file = dir.resolve("a.pcap");
        boolean raw = RawIpv4Socket.permitted();
        System.setProperty("jrdma.devices", a + "=127.91." + r + ".1," + b + "=127.91." + r + ".2");
        System.setProperty("jrdma.pcap." + a, file.toString());
        if (raw) { // the raw port knows every IP header, so the capture's ICRCs check exactly
            System.setProperty("jrdma.ipv4." + a, "raw");
            System.setProperty("jrdma.ipv4." + b, "raw");
        }
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair qpa = pa.createQp(attr(qa)), qpb = pb.createQp(attr(qb));
            FaultToleranceTest.connect(qpa, qpb, cb.queryGid(1, 0), 1, 2);
            FaultToleranceTest.connect(qpb, qpa, ca.queryGid(1, 0), 2, 1);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            MemorySegment ma = arena.allocate(8192), mb = arena.allocate(8192);
            MemoryRegion ra = pa.regMr(ma, all), rb = pb.regMr(mb, all);
            qpa.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 3000, ra.lkey())).rdma(mb.address(), rb.rkey()));
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(qa).status());
            qpa.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 4096, 2000, ra.lkey())).rdma(mb.address(), rb.rkey()));
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(qa).status());
        } finally {
            System.clearProperty("jrdma.pcap." + a);
            System.clearProperty("jrdma.ipv4." + a);
            System.clearProperty("jrdma.ipv4." + b);
        }
        assertTrue(Files.size(file) > 24, "capture written");
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = PcapCheck.run(new String[] {file.toString()}, new PrintStream(out, true), new PrintStream(err, true));
        String text = out.toString();
        // 3 WRITE packets (MTU 1024) + ACK received, READ request + 2 responses: 7 packets
        assertTrue(text.contains("RC RDMA WRITE First") && text.contains("RC RDMA READ response Last"), text);
        if (raw) {
            assertEquals(0, status, text + err);
        }
    }

    private static QpInitAttr attr(CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16);
        return ia;
    }
}
