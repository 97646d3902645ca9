package org.jrdma.bench;

import java.util.concurrent.TimeUnit;

import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/** Writing and reading BTH + RETH (an RDMA WRITE First) through the flyweights on a pooled buffer. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeaderBench {
    private final PacketBuffer buf = PacketBuffer.allocate(2048);
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private int psn;
    private long va = 0x000055614da0f000L;

    @Setup
    public void setup() {
        encode();
    }

    @Benchmark
    public PacketBuffer encode() {
        int p = psn = (psn + 1) & 0xffffff;
        bth.wrap(buf.seg, 0).opcode(Opcode.RC_RDMA_WRITE_FIRST).se(false).migReq(false).padCount(0).tver(0)
            .pkey(0xffff).fecn(false).becn(false).destQpn(0x12).ackReq(false).psn(p);
        reth.wrap(buf.seg, Bth.LENGTH).va(va += 1024).rkey(0x398).dmaLength(8192);
        return buf;
    }

    @Benchmark
    public void decode(Blackhole bh) {
        bth.wrap(buf.seg, 0);
        int op = bth.opcode();
        bh.consume(op);
        bh.consume(bth.padCount());
        bh.consume(bth.pkey());
        bh.consume(bth.destQpn());
        bh.consume(bth.ackReq());
        bh.consume(bth.psn());
        reth.wrap(buf.seg, Opcode.offset(op, Opcode.RETH));
        bh.consume(reth.va());
        bh.consume(reth.rkey());
        bh.consume(reth.dmaLength());
    }
}
