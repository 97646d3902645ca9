package org.jrdma.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * ICRC of a RoCE v2 packet ({@code size} bytes from BTH to the end of the payload) next to a bare
 * {@link CRC32} over the same number of bytes of the same direct buffer, and the IPv4 ID recovery a
 * receiver behind a UDP socket needs. The difference between {@code icrcIpv4} and {@code rawCrc32} is the
 * cost of the masked pseudo-header (8 + 20 + 8 + 12 bytes).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IcrcBench {
    @Param({"64", "1024", "4096"})
    public int size;

    private PacketBuffer buf;
    private ByteBuffer view;
    private final Icrc icrc = new Icrc();
    private final CRC32 crc = new CRC32();
    private int received;

    @Setup
    public void setup() {
        buf = PacketBuffer.allocate(size + 64);
        for (int i = 0; i < size; i++) {
            buf.bb.put(i, (byte) (i * 31 + 7));
        }
        new Bth().wrap(buf.seg, 0).opcode(Opcode.RC_SEND_MIDDLE).pkey(0xffff).destQpn(0x11).psn(12345);
        view = buf.bb.duplicate();
        received = icrc.ipv4(0x0a4d000c, 0x0a4d000b, 0xc474, 0x4000, 49476, 4791, buf, 0, size);
    }

    @Benchmark
    public int icrcIpv4() {
        return icrc.ipv4(0x0a4d000c, 0x0a4d000b, 0xc474, 0x4000, 49476, 4791, buf, 0, size);
    }

    @Benchmark
    public int icrcIpv6() {
        return icrc.ipv6(0xfd77000000000000L, 0x12L, 0xfd77000000000000L, 0x11L, 49476, 4791, buf, 0, size);
    }

    @Benchmark
    public int rawCrc32() {
        CRC32 c = crc;
        c.reset();
        view.limit(size);
        view.position(0);
        c.update(view);
        return (int) c.getValue();
    }

    @Benchmark
    public int solveIpv4Id() {
        return icrc.solveIpv4Id(0x0a4d000c, 0x0a4d000b, 0x4000, 49476, 4791, buf, 0, size, received);
    }
}
