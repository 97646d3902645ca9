package org.jrdma.examples.kv;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/** The {@link TcpKvServer}'s client: one request at a time, blocking NIO, TCP_NODELAY. */
public final class TcpKvClient implements AutoCloseable {
    private final SocketChannel c;
    private final ByteBuffer in = ByteBuffer.allocate(2 + 255);

    private TcpKvClient(InetSocketAddress server) throws IOException {
        this.c = SocketChannel.open(server);
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    public static TcpKvClient connect(InetSocketAddress server) {
        try {
            return new TcpKvClient(server);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void call(byte[] request, int answer) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(request);
        while (out.hasRemaining()) {
            c.write(out);
        }
        in.clear().limit(answer);
        if (!TcpKvServer.readFully(c, in)) {
            throw new EOFException("kv: the server closed the connection");
        }
    }

    /** The value of {@code key}, or null. */
    public byte[] get(byte[] key) {
        try {
            call(KvTable.request((byte) 2, key, new byte[0]), 2);
            if (in.get(0) == 0) {
                return null;
            }
            int vl = in.get(1) & 0xff;
            in.clear().limit(vl);
            if (!TcpKvServer.readFully(c, in)) {
                throw new EOFException("kv: the server closed the connection");
            }
            byte[] v = new byte[vl];
            in.flip().get(v);
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stores {@code value} under {@code key}; ENOSPC / EINVAL as {@link RdmaKvClient#put}. */
    public void put(byte[] key, byte[] value) {
        if (key.length == 0 || key.length > KvLayout.MAX_KEY || value.length > KvLayout.MAX_VALUE) {
            throw new VerbsException(Errno.EINVAL, "kv put: key 1..32 bytes, value 0..80 bytes");
        }
        try {
            call(KvTable.request((byte) 1, key, value), 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte status = in.get(0);
        if (status == KvTable.FULL) {
            throw new VerbsException(Errno.ENOSPC, "kv put: the key's slots hold other keys");
        }
        if (status != KvTable.OK) {
            throw new VerbsException(Errno.EINVAL, "kv put: refused (status " + status + ")");
        }
    }

    @Override
    public void close() {
        try {
            c.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
