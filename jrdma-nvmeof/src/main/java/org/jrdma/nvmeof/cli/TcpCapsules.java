package org.jrdma.nvmeof.cli;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.jrdma.nvmeof.wire.Commands;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.Opcodes;
import org.jrdma.nvmeof.wire.Sqe;

/**
 * The bench's baseline, not a transport of the project: the same NVMe capsules over one plain TCP
 * connection (the NVMe/TCP idea without its PDU headers): the host writes a 64-byte SQE (a Write's
 * data right after it, as in-capsule data), the target answers a Read with its data then the 16-byte
 * CQE, anything else with the CQE; a RAM namespace on the target, blocking NIO with TCP_NODELAY, one
 * thread each side. Used by {@link LoopbackBench} only.
 */
final class TcpCapsules {
    private TcpCapsules() {
    }

    /** The target: serves one connection at a time until it closes, until closed itself (its own thread). */
    static final class Target implements AutoCloseable {
        final ServerSocketChannel server;
        final ByteBuffer disk;
        final int blockSize;
        final Thread thread;

        Target(InetSocketAddress at, int bytes, int blockSize) throws IOException {
            server = ServerSocketChannel.open().bind(at);
            disk = ByteBuffer.allocateDirect(bytes);
            this.blockSize = blockSize;
            thread = Thread.ofPlatform().daemon().name("tcp-capsule-target").start(this::serve);
        }

        InetSocketAddress address() throws IOException {
            return (InetSocketAddress) server.getLocalAddress();
        }

        private void serve() {
            while (server.isOpen()) {
                try (SocketChannel c = server.accept()) {
                    serve(c);
                } catch (IOException e) {
                    return;   // closed
                }
            }
        }

        private void serve(SocketChannel c) throws IOException {
            {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer in = ByteBuffer.allocateDirect(Sqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer cqe = ByteBuffer.allocateDirect(Cqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
                Sqe sqe = new Sqe().wrap(MemorySegment.ofBuffer(in), 0);
                Cqe cq = new Cqe().wrap(MemorySegment.ofBuffer(cqe), 0);
                int head = 0;
                while (true) {
                    in.clear();
                    if (!readFully(c, in)) {
                        return;
                    }
                    long off = sqe.cdw10and11() * blockSize;
                    int len = ((sqe.cdw(12) & 0xffff) + 1) * blockSize;
                    ByteBuffer d = disk.duplicate();
                    d.limit((int) off + len).position((int) off);
                    if (sqe.opcode() == Opcodes.IO_WRITE && !readFully(c, d)) {
                        return;
                    }
                    head = (head + 1) & 0x7f;
                    cq.result(0).sqHead(head).sqId(1).commandId(sqe.commandId()).statusField(0);
                    cqe.clear();
                    if (sqe.opcode() == Opcodes.IO_READ) {
                        writeFully(c, d);
                    }
                    writeFully(c, cqe);
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    static boolean readFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    static void writeFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    /**
     * {@code ios} random {@code bs}-byte Reads (or Writes) at {@code depth} outstanding on one
     * connection: {@code depth} capsules sent, then one more after each response. Latency from a
     * capsule's send to its response's arrival.
     */
    static Bench.Result run(InetSocketAddress at, boolean write, long[] lba, int bs, int blockSize, int depth) throws IOException {
        try (SocketChannel c = SocketChannel.open(at)) {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer out = ByteBuffer.allocateDirect(Sqe.SIZE + bs).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer data = ByteBuffer.allocateDirect(bs);
            ByteBuffer cqe = ByteBuffer.allocateDirect(Cqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
            Sqe sqe = new Sqe().wrap(MemorySegment.ofBuffer(out), 0);
            Cqe cq = new Cqe().wrap(MemorySegment.ofBuffer(cqe), 0);
            long[] start = new long[depth];
            long[] lat = new long[lba.length];
            int[] index = new int[depth];
            int sent = 0;
            int done = 0;
            long t0 = System.nanoTime();
            while (done < lba.length) {
                while (sent < lba.length && sent - done < depth) {
                    int cid = sent % depth;
                    Commands.readWrite(sqe, write, cid, 1, lba[sent], bs / blockSize);
                    out.clear().limit(write ? Sqe.SIZE + bs : Sqe.SIZE);
                    index[cid] = sent;
                    start[cid] = System.nanoTime();
                    writeFully(c, out);
                    sent++;
                }
                if (!write) {
                    data.clear();
                    readFully(c, data);
                }
                cqe.clear();
                readFully(c, cqe);
                int cid = cq.commandId();
                lat[index[cid]] = System.nanoTime() - start[cid];
                done++;
            }
            return new Bench.Result(write ? "write" : "read", lba.length, (long) lba.length * bs, System.nanoTime() - t0, lat, 0);
        }
    }
}
