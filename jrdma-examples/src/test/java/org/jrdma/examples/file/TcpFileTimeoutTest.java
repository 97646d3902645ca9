package org.jrdma.examples.file;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NIO TCP twin's bounded waits, beyond {@link FileTransferTest}'s TCP cases: a receiver that
 * accepts and then reads nothing (connection open, window shut) fails the sender after the timeout,
 * where a blocking write would wait forever; a sender that connects and then sends nothing fails the
 * receiver after the timeout; no sender at all fails {@code receive} after the timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpFileTimeoutTest {
    static final Duration SHORT = Duration.ofSeconds(1);
    @TempDir
    Path dir;

    private static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    private static FileTransferException cause(CompletableFuture<TransferResult> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof FileTransferException, e.getCause().toString());
        return (FileTransferException) e.getCause();
    }

    @Test
    void aReceiverThatStopsReadingFailsTheSenderAfterTheTimeout() throws Exception {
        Path in = dir.resolve("in");
        FileBench.randomFile(in, 64L << 20, 7);             // far more than loopback's socket buffers hold
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(loopback())) {
            CompletableFuture<TransferResult> sent = FileBench.receiveAsync(
                    () -> TcpFileSender.send((InetSocketAddress) server.getLocalAddress(), in, 64 * 1024, SHORT));
            try (SocketChannel c = server.accept()) {
                FileTransferException e = cause(sent);    // c stays open and unread meanwhile
                assertTrue(e.getMessage().contains("within " + SHORT), e.getMessage());
                assertTrue(e.getMessage().contains("peer is gone or stuck"), e.getMessage());
                assertFalse(e.checksumMismatch());
            }
        }
    }

    @Test
    void aSilentSenderFailsTheReceiverAfterTheTimeout() throws Exception {
        try (TcpFileReceiver r = TcpFileReceiver.listen(loopback(), 16 * 1024)) {
            CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(dir.resolve("out"), SHORT));
            try (SocketChannel c = SocketChannel.open(r.address())) {
                ByteBuffer size = ByteBuffer.allocate(8).putLong(1 << 20).flip();
                c.write(size);                              // announces 1 MiB, then sends nothing
                FileTransferException e = cause(got);
                assertTrue(e.getMessage().contains("no file bytes within " + SHORT), e.getMessage());
            }
            FileTransferException none = cause(FileBench.receiveAsync(() -> r.receive(dir.resolve("out"), SHORT)));
            assertTrue(none.getMessage().contains("no sender connected within"), none.getMessage());
        }
    }
}
