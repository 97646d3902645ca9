package org.jrdma.rocev2;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.transport.SharedPort;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process's membership of a device shared by several processes, as processes share an RNIC:
 * every process opening the device binds its own socket to the device's address and UDP port 4791
 * (SO_REUSEPORT, one effective UID), owns a <em>slot</em> of QPNs, and the kernel steers each
 * datagram to the process owning its BTH destination QPN ({@link SharedPort#steer}). No daemon:
 * the members coordinate through files in the device's runtime directory
 * ({@code /tmp/jrdma-EUID/dev-ADDRESS-PORT}, {@link #directory}; {@code /tmp/jrdma-EUID} has mode
 * 0700 and must belong to the user):
 * <ul>
 *   <li>{@code slot-N.lock}: slot N (0..{@value #SLOTS}-1, QPNs {@code N << 18} to
 *       {@code (N << 18) + 262143}, slot 0 from 17) is the process's while it holds a lock on the
 *       file; the kernel releases the lock when the process ends however it ends, so a crashed
 *       process's slot is free again;</li>
 *   <li>{@code group.lock}: held while a member joins, leaves or repairs the list;</li>
 *   <li>{@code members}: the slots of the members in the order of their sockets in the kernel's
 *       reuseport group (join order; when a socket closes, the kernel moves the last into its place:
 *       {@code net/core/sock_reuseport.c}), with a version; replaced atomically (rename).</li>
 * </ul>
 * QPN 0 and 1 (SMI, GSI) are in slot 0: the process holding slot 0 (the first to open the device,
 * or the next to join after it closed) owns them. A datagram for a QPN of no member reaches one
 * member (the kernel's flow hash; with raw IPv4, the member with the lowest slot), which drops and
 * counts it ({@code rcvd_drop_unknown_qpn}).
 *
 * <h2>Threads and locks</h2>
 * {@link #join} and {@link #leave} run in the thread opening / closing the device (under its
 * monitor); each takes this JVM's lock of the directory, then {@code group.lock} (a blocking
 * {@link FileChannel#lock()}), then calls {@link SharedPort#steer} (the socket's monitor). A daemon
 * thread per membership, {@code jrdma-share-DEVICE}, looks every {@value #KEEPER_MILLIS} ms at the
 * member list: when a member's slot lock is free (its process ended without leaving) it takes the
 * same locks in the same order, removes it as the kernel did and re-steers; when the list changed
 * it re-steers. It never takes the device's monitor. The slot lock is held from join to leave,
 * i.e. while the device is open in this process.
 *
 * <p>Limits: if two members end within the same look (about {@value #KEEPER_MILLIS} ms) the order in
 * which the kernel removed their sockets cannot be known; the list assumes the order of the member
 * list, and a survivor whose socket moved otherwise receives another's traffic until the next change
 * of membership (its RC QPs then end in RETRY_EXC_ERR). Sockets of other programs that join the
 * group (same UID, SO_REUSEPORT on 4791) are not accounted for. With raw IPv4 each member filters
 * in its own raw socket, and an existing member learns of a newcomer at its keeper's next look: for
 * up to {@value #KEEPER_MILLIS} ms after a process joins, the member with the lowest slot also takes
 * the newcomer's datagrams as unowned and counts them ({@code rcvd_drop_unknown_qpn}); the newcomer
 * receives them all the same (with UDP the reuseport program is the group's, so a join steers
 * every member at once).
 */
final class DeviceShare {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceShare.class);
    /** A QPN's slot is {@code qpn >>> SLOT_SHIFT}. */
    static final int SLOT_SHIFT = 18;
    /** Slots of a 24-bit QPN space, i.e. at most this many processes per device. */
    static final int SLOTS = 1 << (24 - SLOT_SHIFT);
    /** How often the keeper looks at the member list, ms. */
    static final int KEEPER_MILLIS = 50;

    /** This JVM's state of one device directory: shared by the memberships of this JVM. */
    private static final class Dir {
        final Path path;
        final ReentrantLock jvmLock = new ReentrantLock();
        /** The one channel of this JVM on group.lock (closing another would drop the lock: POSIX). */
        FileChannel group;
        /** Slots this JVM holds (their files are opened by nobody else in this JVM). */
        final Set<Integer> slotsHere = new HashSet<>();

        Dir(Path path) {
            this.path = path;
        }
    }

    private static final Map<Path, Dir> DIRS = new ConcurrentHashMap<>();

    private final String name;
    private final Dir dir;
    private final int slot;
    private final FileChannel slotChannel;
    private final FileLock slotLock;
    private final SharedPort port;
    private final Thread keeper;
    private volatile boolean leaving;
    /** The version of the member list last applied (keeper thread, or under the group lock). */
    private long applied = -1;

    private DeviceShare(String name, Dir dir, int slot, FileChannel slotChannel, FileLock slotLock, SharedPort port) {
        this.name = name;
        this.dir = dir;
        this.slot = slot;
        this.slotChannel = slotChannel;
        this.slotLock = slotLock;
        this.port = port;
        this.keeper = Thread.ofPlatform().daemon().name("jrdma-share-" + name).unstarted(this::keep);
    }

    /** The port opened at {@link #join}. */
    SharedPort port() {
        return port;
    }

    /** This process's slot. */
    int slot() {
        return slot;
    }

    /** The first QPN this process may hand out (17 in slot 0). */
    int firstQpn() {
        return Math.max(17, slot << SLOT_SHIFT);
    }

    /** The last QPN this process may hand out. */
    int lastQpn() {
        return (slot << SLOT_SHIFT) + (1 << SLOT_SHIFT) - 1;
    }

    /**
     * The runtime directory of the device on {@code address}:{@code udpPort}:
     * {@code /tmp/jrdma-EUID/dev-ADDRESS-PORT}. Always under {@code /tmp} (not {@code java.io.tmpdir}
     * nor {@code $XDG_RUNTIME_DIR}, which differ between processes of one user: a login session
     * and a cron job, a JVM started with another tmpdir), so that every process of the user finds
     * the same files.
     */
    static Path directory(InetAddress address, int udpPort) {
        String a = address.getHostAddress().replaceAll("[^A-Za-z0-9.]", "_");
        return Path.of("/tmp", "jrdma-" + UdpSocket.effectiveUid(), "dev-" + a + "-" + udpPort);
    }

    /**
     * Joins the device on {@code address}:{@code udpPort}: claims the lowest free slot, opens the
     * port with {@code open} (which binds with SO_REUSEPORT, so its socket becomes the last of the
     * group), records it in the member list and steers; starts the keeper.
     *
     * @throws VerbsException EADDRINUSE when all {@value #SLOTS} slots are taken; EACCES when the
     *                        runtime directory cannot be used; what {@code open} throws
     */
    static DeviceShare join(String name, InetAddress address, int udpPort, Supplier<SharedPort> open) {
        Path path = directory(address, udpPort);
        Dir dir = DIRS.computeIfAbsent(path, Dir::new);
        DeviceShare share;
        dir.jvmLock.lock();
        try (FileLock group = lockGroup(name, dir)) {
            List<Integer> members = pruned(dir, readMembers(dir).slots);
            FileChannel ch = null;
            FileLock lock = null;
            int s = 0;
            for (; s < SLOTS && lock == null; s++) {
                if (dir.slotsHere.contains(s)) {
                    continue;
                }
                ch = FileChannel.open(dir.path.resolve("slot-" + s + ".lock"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                lock = tryLock(ch);
                if (lock == null) {
                    ch.close();
                }
            }
            if (lock == null) {
                throw new VerbsException(Errno.EADDRINUSE, "device " + name + " is open in " + SLOTS
                        + " processes already (" + dir.path + ")");
            }
            int mine = s - 1;
            SharedPort p;
            try {
                p = open.get();
            } catch (RuntimeException e) {
                lock.release();
                ch.close();
                throw e;
            }
            members.add(mine);
            dir.slotsHere.add(mine);
            share = new DeviceShare(name, dir, mine, ch, lock, p);
            try {
                long v = writeMembers(dir, members);
                p.steer(SLOT_SHIFT, toArray(members), mine);
                share.applied = v;
            } catch (RuntimeException | IOException e) {
                dir.slotsHere.remove(mine);
                p.close();
                lock.release();
                ch.close();
                throw e;
            }
        } catch (IOException e) {
            throw new VerbsException(Errno.EACCES, "device " + name + ": cannot use " + path + ": " + e, e);
        } finally {
            dir.jvmLock.unlock();
        }
        share.keeper.start();
        return share;
    }

    /**
     * Leaves: stops the keeper, then under the group lock removes this member from the list (the
     * last member takes its index, as the kernel will do), steers the rest, runs {@code closePort}
     * (which closes the socket), writes the list and frees the slot. Device-closing thread.
     */
    void leave(Runnable closePort) {
        leaving = true;
        LockSupport.unpark(keeper);
        try {
            keeper.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean closed = false;
        dir.jvmLock.lock();
        try (FileLock group = lockGroup(name, dir)) {
            List<Integer> members = pruned(dir, readMembers(dir).slots);
            int i = members.indexOf(slot);
            if (i >= 0) {
                members.set(i, members.get(members.size() - 1));
                members.remove(members.size() - 1);
            }
            if (!members.isEmpty()) {
                try {
                    port.steer(SLOT_SHIFT, toArray(members), members.get(0));
                } catch (RuntimeException e) {
                    LOG.debug("{}: steering the remaining members failed", name, e);
                }
            }
            closed = true;
            closePort.run();
            writeMembers(dir, members);
        } catch (IOException e) {
            LOG.warn("{}: could not update the member list in {}: {}", name, dir.path, e.toString());
        } finally {
            if (!closed) {
                closePort.run();
            }
            dir.slotsHere.remove(slot);
            try {
                slotLock.release();
                slotChannel.close();
            } catch (IOException ignored) {
                // the lock goes with the channel
            }
            dir.jvmLock.unlock();
        }
    }

    /** The keeper thread's loop. */
    private void keep() {
        while (!leaving) {
            LockSupport.parkNanos(KEEPER_MILLIS * 1_000_000L);
            if (leaving) {
                return;
            }
            try {
                look();
            } catch (IOException | RuntimeException e) {
                LOG.debug("{}: share keeper", name, e);
            }
        }
    }

    /** One look of the keeper: repair after a member that ended without leaving, re-steer after a change. */
    void look() throws IOException {
        dir.jvmLock.lock(); // also keeps this JVM's joins from claiming a slot file while it is open here
        try {
            Members m = readMembers(dir);
            boolean dead = false;
            for (int s : m.slots) {
                if (!dir.slotsHere.contains(s) && !alive(dir, s)) {
                    dead = true;
                    break;
                }
            }
            if (leaving || (!dead && m.version == applied)) {
                return;
            }
            try (FileLock group = lockGroup(name, dir)) {
                m = readMembers(dir);
                List<Integer> members = pruned(dir, m.slots);
                long v = m.version;
                if (!members.equals(m.slots)) {
                    v = writeMembers(dir, members);
                    LOG.debug("{}: a member ended without leaving; members now {}", name, members);
                }
                if (members.contains(slot)) {
                    port.steer(SLOT_SHIFT, toArray(members), slot);
                }
                applied = v;
            }
        } finally {
            dir.jvmLock.unlock();
        }
    }

    /** The list without the members whose slot lock is free, removed as the kernel removes sockets. */
    private static List<Integer> pruned(Dir dir, List<Integer> slots) throws IOException {
        List<Integer> out = new ArrayList<>(slots);
        for (int i = 0; i < out.size(); ) {
            int s = out.get(i);
            if (dir.slotsHere.contains(s) || alive(dir, s)) {
                i++;
            } else {
                out.set(i, out.get(out.size() - 1));
                out.remove(out.size() - 1);
            }
        }
        return out;
    }

    /** Whether another process holds slot {@code s} (never asked for a slot of this JVM). */
    private static boolean alive(Dir dir, int s) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.path.resolve("slot-" + s + ".lock"), StandardOpenOption.WRITE)) {
            FileLock l = tryLock(ch);
            if (l == null) {
                return true;
            }
            l.release();
            return false;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private static FileLock tryLock(FileChannel ch) throws IOException {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // held in this JVM
        }
    }

    /** Takes group.lock (blocking) with this JVM's one channel on it; creates the directory on first use. */
    private static FileLock lockGroup(String name, Dir dir) throws IOException {
        if (dir.group == null || !dir.group.isOpen()) {
            Path base = dir.path.getParent();
            if (!Files.isDirectory(base)) {
                Files.createDirectories(base, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            Object owner = Files.getAttribute(base, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (!(owner instanceof Integer uid) || uid != UdpSocket.effectiveUid()) {
                throw new IOException(base + " belongs to another user (uid " + owner + ")");
            }
            if (!Files.isDirectory(dir.path)) {
                Files.createDirectories(dir.path);
            }
            dir.group = FileChannel.open(dir.path.resolve("group.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        }
        return dir.group.lock();
    }

    /** The member list: a version and the slots by index in the reuseport group. */
    record Members(long version, List<Integer> slots) {
    }

    static Members readMembers(Dir dir) throws IOException {
        String text;
        try {
            text = Files.readString(dir.path.resolve("members"), StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return new Members(0, List.of());
        }
        String[] f = text.isEmpty() ? new String[0] : text.split("\\s+");
        List<Integer> slots = new ArrayList<>();
        long version = 0;
        try {
            version = f.length > 0 ? Long.parseLong(f[0]) : 0;
            for (int i = 1; i < f.length; i++) {
                int s = Integer.parseInt(f[i]);
                if (s >= 0 && s < SLOTS && !slots.contains(s)) {
                    slots.add(s);
                }
            }
        } catch (NumberFormatException e) {
            LOG.warn("ignoring the malformed member list {}: '{}'", dir.path.resolve("members"), text);
            return new Members(0, List.of());
        }
        return new Members(version, slots);
    }

    /** Writes the list with the next version (under the group lock); returns that version. */
    private static long writeMembers(Dir dir, List<Integer> slots) throws IOException {
        long v = readMembers(dir).version + 1;
        StringBuilder b = new StringBuilder().append(v);
        for (int s : slots) {
            b.append(' ').append(s);
        }
        Path tmp = dir.path.resolve("members.tmp");
        Files.writeString(tmp, b.append('\n'), StandardCharsets.US_ASCII);
        Files.move(tmp, dir.path.resolve("members"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return v;
    }

    private static int[] toArray(List<Integer> l) {
        return l.stream().mapToInt(Integer::intValue).toArray();
    }
}
