package org.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeviceAddresses} on sysfs trees laid out as the lab guests' Linux 6.1 shows them: rxe0 on eth0
 * (gid_attrs/ndevs, GIDs fe80::5054:ff:fe77:12, ::ffff:10.77.0.12, fd77::12) and siw0 on eth1 (no
 * gid_attrs, one GID: eth1's MAC 52:54:00:77:01:12 then zeros), with eth0 and eth1 carrying the
 * same-looking MACs and their addresses, and an InfiniBand-like port (no net device, a subnet-prefix GID).
 */
@Timeout(10)
class DeviceAddressesTest {
    private static final byte[] ETH0_MAC = {0x52, 0x54, 0x00, 0x77, 0x00, 0x12};
    private static final byte[] ETH1_MAC = {0x52, 0x54, 0x00, 0x77, 0x01, 0x12};

    @TempDir
    Path sys;

    private static InetAddress ip(String s) throws IOException {
        return InetAddress.getByName(s);
    }

    private DeviceAddresses.Netdevs netdevs() throws IOException {
        List<DeviceAddresses.Netdev> l = List.of(
                new DeviceAddresses.Netdev("lo", new byte[0], List.of(ip("127.0.0.1"), ip("::1"))),
                new DeviceAddresses.Netdev("eth0", ETH0_MAC,
                        List.of(ip("fe80::5054:ff:fe77:12"), ip("fd77::12"), ip("10.77.0.12"))),
                new DeviceAddresses.Netdev("eth1", ETH1_MAC,
                        List.of(ip("fe80::5054:ff:fe77:112"), ip("fd77:1::12"), ip("10.77.1.12"))));
        return () -> l;
    }

    private Path port(String dev, String... gids) throws IOException {
        Path p = sys.resolve(dev).resolve("ports/1");
        Files.createDirectories(p.resolve("gids"));
        for (int i = 0; i < gids.length; i++) {
            Files.writeString(p.resolve("gids").resolve(Integer.toString(i)), gids[i] + "\n");
        }
        return p;
    }

    @Test
    void roceFindsItsNetdevThroughGidAttrs() throws IOException {
        Path p = port("rxe0", "fe80:0000:0000:0000:5054:00ff:fe77:0012", "0000:0000:0000:0000:0000:ffff:0a4d:000c",
                "fd77:0000:0000:0000:0000:0000:0000:0012");
        Files.createDirectories(p.resolve("gid_attrs/ndevs"));
        Files.writeString(p.resolve("gid_attrs/ndevs/0"), "eth0\n");
        assertEquals("eth0", DeviceAddresses.netdev(p, DeviceAddresses.gid(p, 0), netdevs()).orElseThrow().name());
        assertEquals(List.of(Gid.of(ip("10.77.0.12")), Gid.of(ip("fd77::12"))), DeviceAddresses.gids(p, netdevs()));
    }

    @Test
    void iwarpFindsItsNetdevByTheMacInGid0() throws IOException {
        Path p = port("siw0", "5254:0077:0112:0000:0000:0000:0000:0000");
        assertEquals("eth1", DeviceAddresses.netdev(p, DeviceAddresses.gid(p, 0), netdevs()).orElseThrow().name());
        List<Gid> g = DeviceAddresses.gids(p, netdevs());
        assertEquals(List.of(Gid.of(ip("10.77.1.12")), Gid.of(ip("fd77:1::12")),
                Gid.parseHex("52540077011200000000000000000000")), g);
        assertTrue(g.contains(Gid.of(ip("10.77.1.12"))), "the CM finds siw0 by its IPv4 address");
    }

    @Test
    void anIwarpMacNoNetdevHasGivesOnlyTheGidTable() throws IOException {
        Path p = port("siw9", "5254:0077:0999:0000:0000:0000:0000:0000");
        assertEquals(List.of(Gid.parseHex("52540077099900000000000000000000")), DeviceAddresses.gids(p, netdevs()));
    }

    @Test
    void anInfinibandGidIsNotTakenForAMac() throws IOException {
        Path p = port("mlx5_0", "fe80:0000:0000:0000:0002:c903:0031:7a61", "0000:0000:0000:0000:0000:0000:0000:0000");
        assertNull(DeviceAddresses.macOf(DeviceAddresses.gid(p, 0)));
        assertEquals(List.of(), DeviceAddresses.gids(p, netdevs()));
        assertNull(DeviceAddresses.macOf(Gid.ZERO));
    }

    @Test
    void noSysfsEntriesGiveNoAddresses() throws IOException {
        assertEquals(List.of(), DeviceAddresses.gids(sys.resolve("none/ports/1"), netdevs()));
    }
}
