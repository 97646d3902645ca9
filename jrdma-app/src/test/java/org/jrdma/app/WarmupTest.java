package org.jrdma.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jrdma.pool.Lease;
import org.jrdma.pool.TestDevices;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Warmup} on soft RoCE (jrxe0/jrxe1) and soft iWARP (jsiw0/jsiw1) in this JVM: it runs and
 * counts its work requests, gives back every pool buffer and endpoint it made, leaves the
 * application's endpoint connected and usable, and refuses bad arguments. No timing is asserted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmupTest {
    private static InetAddress[] addr;

    private EndpointGroup group;
    private Arena arena;
    private final List<MemoryRegion> regions = new ArrayList<>();

    @BeforeAll
    static void devices() throws Exception {
        TestDevices.configure();
        addr = new InetAddress[4];
        for (int i = 0; i < 4; i++) {
            addr[i] = InetAddress.getByName(TestDevices.ADDRESSES[i]);
        }
    }

    @BeforeEach
    void open() {
        // a connection's setup may take seconds on a loaded machine (the first one starts the devices)
        group = EndpointGroup.create(new EndpointConfig().timeout(Duration.ofSeconds(30)));
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        regions.forEach(MemoryRegion::close);      // before the group closes the PDs they belong to
        group.close();
        arena.close();
    }

    @Test
    void loopbackAndRunOnSoftRoce() throws Exception {
        loopbackThenRun(addr[0], addr[1]);
    }

    @Test
    void loopbackAndRunOnSoftIwarp() throws Exception {
        loopbackThenRun(addr[2], addr[3]);
    }

    /**
     * An application pair first (the server advertises a region of known bytes), then the loopback
     * warm-up on the same two devices, then {@link Warmup#run} on the application's endpoint.
     */
    private void loopbackThenRun(InetAddress server, InetAddress client) throws Exception {
        MemorySegment table = arena.allocate(4096, 64);
        for (int i = 0; i < 4096; i += 8) {
            table.set(ValueLayout.JAVA_LONG, i, 1000 + i);
        }
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            regions.add(mr[0]);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        long clientLeases = c.pool().metrics().leasesInUse();
        long serverLeases = s.pool().metrics().leasesInUse();

        Warmup.Report r = Warmup.loopback(group, new InetSocketAddress(server, 0), new InetSocketAddress(client, 0), 31);
        assertEquals(31, r.ops());
        assertTrue(r.nanos() > 0 && r.millis() == r.nanos() / 1e6, r.toString());
        // the private pair is gone with every buffer it held; the application's pair is untouched
        assertEquals(clientLeases, c.pool().metrics().leasesInUse());
        assertEquals(serverLeases, s.pool().metrics().leasesInUse());
        assertTrue(c.isConnected() && s.isConnected());

        Warmup.Report q = Warmup.run(c, rb, 40);
        assertEquals(40, q.ops());
        assertTrue(c.isConnected());
        assertEquals(clientLeases, c.pool().metrics().leasesInUse());
        try (Lease buf = c.pool().lease(64)) {
            EndpointTest.get(c.read(buf, 0, 8, rb, 64));
            assertEquals(1064, buf.getLong(0));
        }
        assertEquals(0, Warmup.run(c, rb, 0).ops());
        assertEquals(0, Warmup.loopback(group, new InetSocketAddress(server, 0), new InetSocketAddress(client, 0), 0).ops());
        c.close();
        s.close();
    }

    @Test
    void badArgumentsAndAClosedEndpointAreRefused() throws Exception {
        InetSocketAddress srv = new InetSocketAddress(addr[0], 0);
        InetSocketAddress cli = new InetSocketAddress(addr[1], 0);
        assertThrows(IllegalArgumentException.class, () -> Warmup.loopback(group, srv, cli, -1));
        MemorySegment table = arena.allocate(64, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = EndpointTest.pair(group, addr[0], addr[1], l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            regions.add(mr[0]);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        assertThrows(IllegalArgumentException.class, () -> Warmup.run(c, rb, -1));
        // an address no device has: the listener is refused and nothing is left behind
        VerbsException nobody = assertThrows(VerbsException.class,
                () -> Warmup.loopback(group, new InetSocketAddress(InetAddress.getByName("127.254.254.254"), 0), cli, 3));
        assertEquals(Errno.EADDRNOTAVAIL, nobody.errno());
        c.close();
        VerbsException closed = assertThrows(VerbsException.class, () -> Warmup.run(c, rb, 3));
        assertEquals(Errno.EIO, closed.errno());
        assertInstanceOf(EndpointClosedException.class, closed.getCause());
        assertFalse(c.isConnected());
        p[0].close();
    }
}
