package org.jrdma.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.jrdma.pool.Lease;
import org.jrdma.pool.TestDevices;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same endpoints over soft iWARP (jsiw0 server, jsiw1 client): SEND/receive, WRITE, READ; what
 * iWARP lacks (immediate data, atomics) is refused at post with EINVAL, as siw refuses it.
 */
class EndpointIwarpTest {
    static InetAddress server;
    static InetAddress client;

    @BeforeAll
    static void devices() throws Exception {
        TestDevices.configure();
        server = InetAddress.getByName(TestDevices.ADDRESSES[2]);
        client = InetAddress.getByName(TestDevices.ADDRESSES[3]);
    }

    @Test
    void sendWriteAndReadWorkAndImmediateDataAndAtomicsAreEinval() throws Exception {
        try (EndpointGroup group = EndpointGroup.create(new EndpointConfig()); Arena arena = Arena.ofShared()) {
            MemorySegment table = arena.allocate(4096, 64);
            MemoryRegion[] mr = new MemoryRegion[1];
            Endpoint[] p = EndpointTest.pair(group, server, client, l -> {
                mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
                return RemoteBuffer.of(mr[0]).encode();
            }, "iw".getBytes(StandardCharsets.US_ASCII));
            Endpoint s = p[0];
            Endpoint c = p[1];
            assertEquals(TransportType.IWARP, c.context().device().transportType());
            RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
            assertEquals("iw", new String(s.peerPrivateData(), 0, 2, StandardCharsets.US_ASCII));

            var incoming = s.receive();
            try (Lease m = c.pool().lease(64)) {
                m.putBytes(0, "over MPA".getBytes(StandardCharsets.US_ASCII));
                EndpointTest.get(c.send(m, 0, 8));
            }
            try (Received r = EndpointTest.get(incoming)) {
                assertEquals("over MPA", new String(r.bytes(), StandardCharsets.US_ASCII));
            }
            byte[] data = new byte[3000];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i ^ 0x5a);
            }
            try (Lease w = c.pool().lease(4096); Lease rd = c.pool().lease(4096)) {
                w.putBytes(0, data);
                EndpointTest.get(c.write(w, 0, 3000, rb, 1000));
                // An iWARP WRITE completes once it is handed to TCP, not once it is placed (RFC 5040's completion and ordering rules,
                // as siw): the READ that follows on the same stream is answered after the WRITE's placement,
                // so the responder's memory is looked at only once the READ has completed.
                EndpointTest.get(c.read(rd, 0, 3000, rb, 1000));
                assertArrayEquals(data, rd.getBytes(0, 3000));
                byte[] there = new byte[3000];
                MemorySegment.copy(table, ValueLayout.JAVA_BYTE, 1000, there, 0, 3000);
                assertArrayEquals(data, there);
                assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.writeWithImm(w, 0, 8, rb, 0, 1)).errno());
            }
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.fetchAndAdd(rb, 0, 1)).errno());
            assertTrue(c.isConnected(), "refused posts leave the connection up");
            c.close();
            s.close();
            assertEquals(0, c.pool().metrics().leasesInUse(), "the refused atomic's result lease came back too");
            mr[0].close();
        }
    }
}
