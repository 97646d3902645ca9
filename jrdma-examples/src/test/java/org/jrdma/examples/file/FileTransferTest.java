package org.jrdma.examples.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import org.jrdma.examples.LoopbackDevices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file transfer over soft RoCE (jrxe0 receiver, jrxe1 sender: WRITE_WITH_IMM), soft iWARP
 * (jsiw0/jsiw1: WRITE then a CHUNK SEND) and TCP: files of 0, 1, chunk - 1, chunk + 1 bytes and several
 * MB of random bytes arrive identical; a chunk damaged after the sender's checksum is caught by both
 * sides; a receiver that goes away mid-transfer fails the sender with a clear exception in time.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class FileTransferTest {
    static final int CHUNK = 16 * 1024;
    static final Duration TIMEOUT = Duration.ofSeconds(20);
    static String[] ips;
    @TempDir
    Path dir;

    @BeforeAll
    static void devices() {
        ips = LoopbackDevices.configure();
    }

    static final long[] SIZES = {0, 1, CHUNK - 1, CHUNK + 1, 3 * 1024 * 1024 + 12345};

    private static InetSocketAddress at(String ip) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(ip), 0);
    }

    private Path input(long size, long seed) throws IOException {
        Path p = dir.resolve("in-" + size + "-" + seed);
        FileBench.randomFile(p, size, seed);
        return p;
    }

    private static void assertSameFile(Path in, Path out, TransferResult sent, TransferResult got) throws Exception {
        byte[] a = Files.readAllBytes(in);
        assertArrayEquals(a, Files.readAllBytes(out), "output identical to input");
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(a);
        assertArrayEquals(sha, sent.sha256());
        assertArrayEquals(sha, got.sha256());
        assertEquals(a.length, got.bytes());
        assertEquals(FileProtocol.chunks(a.length, CHUNK), got.chunks());
    }

    private void rdmaSizes(String receiverIp, String senderIp, String transport) throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaFileReceiver r = RdmaFileReceiver.listen(g, at(receiverIp), CHUNK, 4)) {
            for (long size : SIZES) {
                Path in = input(size, size + 7);
                Path out = dir.resolve("out");
                CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(out, TIMEOUT));
                TransferResult sent = RdmaFileSender.send(g, r.address(), at(senderIp), in, TIMEOUT);
                TransferResult rec = got.get(60, TimeUnit.SECONDS);
                assertSameFile(in, out, sent, rec);
                assertEquals(size == 0 ? "rdma" : transport, sent.transport(), "size " + size);
                assertEquals(sent.transport(), rec.transport());
            }
        }
    }

    @Test
    void overSoftRoceWithWriteWithImm() throws Exception {
        rdmaSizes(ips[0], ips[1], "rdma-imm");
    }

    @Test
    void overSoftIwarpWithWriteThenSend() throws Exception {
        rdmaSizes(ips[2], ips[3], "rdma-send");
    }

    @Test
    void overTcp() throws Exception {
        try (TcpFileReceiver r = TcpFileReceiver.listen(at(ips[0]), CHUNK)) {
            for (long size : SIZES) {
                Path in = input(size, size + 11);
                Path out = dir.resolve("out");
                CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(out, TIMEOUT));
                TransferResult sent = TcpFileSender.send(r.address(), in, CHUNK, TIMEOUT);
                assertSameFile(in, out, sent, got.get(60, TimeUnit.SECONDS));
                assertEquals("tcp", sent.transport());
            }
        }
    }

    private static FileTransferException cause(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        assertTrue(e.getCause() instanceof FileTransferException, "cause: " + e.getCause());
        return (FileTransferException) e.getCause();
    }

    @Test
    void aCorruptedChunkIsCaughtByTheChecksumOnBothSides() throws Exception {
        Path in = input(5L * CHUNK + 3, 42);
        Path out = dir.resolve("out");
        for (String[] pair : new String[][] {{ips[0], ips[1]}, {ips[2], ips[3]}}) {
            try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
                 RdmaFileReceiver r = RdmaFileReceiver.listen(g, at(pair[0]), CHUNK, 4)) {
                CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(out, TIMEOUT));
                FileTransferException s = assertThrows(FileTransferException.class,
                        () -> RdmaFileSender.send(g, r.address(), at(pair[1]), in, TIMEOUT, 2));
                assertTrue(s.checksumMismatch(), s.toString());
                assertTrue(cause(got).checksumMismatch());
            }
        }
        try (TcpFileReceiver r = TcpFileReceiver.listen(at(ips[0]), CHUNK)) {
            CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(out, TIMEOUT));
            FileTransferException s = assertThrows(FileTransferException.class,
                    () -> TcpFileSender.send(r.address(), in, CHUNK, TIMEOUT, 2));
            assertTrue(s.checksumMismatch(), s.toString());
            assertTrue(cause(got).checksumMismatch());
        }
    }

    @Test
    void aReceiverThatGoesAwayFailsTheSenderWithinTheTimeout() throws Exception {
        Path in = input(20L * CHUNK, 5);
        Path out = dir.resolve("out");
        for (String[] pair : new String[][] {{ips[0], ips[1]}, {ips[2], ips[3]}}) {
            try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
                 RdmaFileReceiver r = RdmaFileReceiver.listen(g, at(pair[0]), CHUNK, 4)) {
                r.stopAfterChunks = 3;
                CompletableFuture<TransferResult> got = FileBench.receiveAsync(() -> r.receive(out, TIMEOUT));
                CompletableFuture<TransferResult> sent = FileBench.receiveAsync(
                        () -> RdmaFileSender.send(g, r.address(), at(pair[1]), in, TIMEOUT));
                cause(got);
                sent.handle((v, t) -> null).get(TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS);   // bounded: the sender's timeout
                FileTransferException s = cause(sent);
                assertTrue(s.getMessage().contains("peer"), s.getMessage());
                assertTrue(!s.checksumMismatch());
            }
        }
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open().bind(at(ips[0]))) {
            CompletableFuture<TransferResult> sent = FileBench.receiveAsync(
                    () -> TcpFileSender.send((InetSocketAddress) server.getLocalAddress(), in, CHUNK, TIMEOUT));
            try (java.nio.channels.SocketChannel c = server.accept()) {
                c.read(java.nio.ByteBuffer.allocate(1000));                  // takes a little, then goes away
            }
            sent.handle((v, t) -> null).get(TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS);
            FileTransferException s = cause(sent);
            assertTrue(s.getMessage().contains("peer"), s.getMessage());
        }
    }
}
