package org.jrdma.rocev2;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Who owns QP1 (the GSI) of a shared device: the process holding slot 0's lock file
 * ({@link DeviceShare}). Its PID is read from the kernel's table of file locks ({@code /proc/locks}:
 * the POSIX lock on the inode of {@code slot-0.lock}), for the EBUSY a second process gets when it asks
 * for QP1. Control path; any thread.
 */
final class Qp1Owner {
    private Qp1Owner() {
    }

    /** The sentence for the EBUSY: "QP1 (GSI) of jrxe0 belongs to process 1234, which holds slot 0 (...)". */
    static String describe(String device, InetAddress address, int udpPort) {
        Path lock = DeviceShare.directory(address, udpPort).resolve("slot-0.lock");
        long pid = pidHolding(lock);
        return "QP1 (GSI) of " + device + " belongs to " + (pid > 0 ? "process " + pid : "another process")
                + ", which holds slot 0 of the device (" + lock + "); this process holds another slot";
    }

    /** The PID of the process holding a POSIX lock on {@code file}, or -1 when none is seen. */
    static long pidHolding(Path file) {
        try {
            long inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
            List<String> lines = Files.readAllLines(Path.of("/proc/locks"));
            for (String line : lines) {
                // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters ("1: -> POSIX ...") hold nothing
                String[] f = line.trim().split("\\s+");
                if (f.length < 6 || f[1].equals("->")) {
                    continue;
                }
                String[] dev = f[5].split(":");
                if (dev.length == 3 && Long.parseLong(dev[2]) == inode) {
                    return Long.parseLong(f[4]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
