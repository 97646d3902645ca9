package org.jrdma.app;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import org.jrdma.pool.TestDevices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the endpoint tests over soft RoCE share: the test JVM's devices configured, {@link #server}
 * (jrxe0's address) and {@link #client} (jrxe1's), a fresh shared arena per test, and the test's
 * {@link #group} (made by the test; closed after it, with its endpoints and pools).
 */
abstract class SoftRocePairFixture {
    static InetAddress server;
    static InetAddress client;
    EndpointGroup group;
    Arena arena;

    @BeforeAll
    static void devices() throws Exception {
        TestDevices.configure();
        server = InetAddress.getByName(TestDevices.ADDRESSES[0]);
        client = InetAddress.getByName(TestDevices.ADDRESSES[1]);
    }

    @BeforeEach
    void openArena() {
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeGroupAndArena() {
        if (group != null) {
            group.close();
        }
        arena.close();
    }
}
