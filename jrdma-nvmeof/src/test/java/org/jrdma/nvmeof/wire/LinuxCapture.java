package org.jrdma.nvmeof.wire;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jrdma.rocev2.pcap.PcapReader;

/**
 * The RoCE v2 packets of {@code testdata/captures-nvmeof/rxe-nvmeof-rw.pcap} (Linux nvme-rdma host
 * 10.77.0.12 ↔ Linux nvmet-rdma target 10.77.0.11): for each, its frame number, BTH opcode,
 * destination QPN, the IETH (the rkey of a Send with Invalidate), the extended transport headers
 * (RETH, AETH, IETH, DETH) and the payload after them (pad and ICRC removed).
 */
final class LinuxCapture {
    record Packet(long frame, int opcode, int destQp, int ieth, byte[] ext, byte[] payload) {
    }

    private LinuxCapture() {
    }

    static Path file() {
        return Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures-nvmeof", "rxe-nvmeof-rw.pcap");
    }

    /** The bytes of the extended transport headers of RC opcode {@code op} (IBTA Vol 1 §9.2, Table 38). */
    static int extHeaders(int op) {
        return switch (op) {
            case 6, 10, 12 -> 16;          // RDMA WRITE First / Only, RDMA READ Request: RETH
            case 13, 15, 16, 17 -> 4;      // RDMA READ Response First / Last / Only, Acknowledge: AETH
            case 22, 23 -> 4;              // SEND Last / Only with Invalidate: IETH
            case 100 -> 8;                 // UD SEND Only (QP1): DETH
            default -> 0;
        };
    }

    static List<Packet> packets() throws IOException {
        List<Packet> l = new ArrayList<>();
        try (PcapReader r = PcapReader.open(file())) {
            while (r.next()) {
                byte[] d = r.data();
                int ip = r.ipHeaderOffset();
                if (ip < 0 || (d[ip] >> 4) != 4 || d[ip + 9] != 17) {
                    continue;
                }
                int udp = ip + r.ipHeaderLength();
                if (((d[udp + 2] & 0xff) << 8 | d[udp + 3] & 0xff) != 4791) {
                    continue;
                }
                int bth = udp + 8;
                int op = d[bth] & 0xff;
                int pad = (d[bth + 1] >> 4) & 3;
                int dqp = (d[bth + 5] & 0xff) << 16 | (d[bth + 6] & 0xff) << 8 | d[bth + 7] & 0xff;
                int ext = bth + 12;
                int ieth = op == 22 || op == 23
                        ? (d[ext] & 0xff) << 24 | (d[ext + 1] & 0xff) << 16 | (d[ext + 2] & 0xff) << 8 | d[ext + 3] & 0xff : 0;
                int ipLen = (d[ip + 2] & 0xff) << 8 | d[ip + 3] & 0xff;
                int end = ip + ipLen - 4 - pad;
                l.add(new Packet(r.frameNumber(), op, dqp, ieth, Arrays.copyOfRange(d, ext, ext + extHeaders(op)),
                        Arrays.copyOfRange(d, ext + extHeaders(op), end)));
            }
        }
        return l;
    }

    static Packet frame(List<Packet> ps, long frame) {
        return ps.stream().filter(p -> p.frame() == frame).findFirst()
                .orElseThrow(() -> new AssertionError("no RoCE packet in frame " + frame));
    }

    /** The payloads of frames {@code first}..{@code last} joined (a message in several packets). */
    static byte[] joined(List<Packet> ps, long first, long last) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (long f = first; f <= last; f++) {
            o.writeBytes(frame(ps, f).payload());
        }
        return o.toByteArray();
    }
}
