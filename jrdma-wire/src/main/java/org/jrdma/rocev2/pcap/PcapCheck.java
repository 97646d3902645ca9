package org.jrdma.rocev2.pcap;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

import org.jrdma.iwarp.pcap.MpaStreamCheck;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.RoceV2;

/**
 * {@code jrdma pcap-check FILE [--port N]}: decodes every RoCE v2 packet (UDP destination port 4791, or
 * N) of a classic pcap or pcapng capture and checks its headers and ICRC, and every iWARP stream (a TCP
 * direction that starts with an MPA key, {@link MpaStreamCheck}): MPA frames, FPDU framing, MPA CRC and
 * DDP/RDMAP headers.
 *
 * <p>Output (to {@code out}): one line per RoCE v2 packet,
 * <pre>
 * #34 1.350700 10.77.0.12:49476 -> 10.77.0.11:4791 RC RDMA WRITE First QPN=0x000012 PSN=6007353 AckReq=0 RETH va=0x000055614da0f000 rkey=0x00000398 len=8192 payload=1024 ICRC ok
 * </pre>
 * (frame number, seconds since the first frame, addresses and UDP ports, then {@link RoceFrameCheck}'s
 * description; ICRC values are the CRC-32 values, which travel little-endian), one line per MPA frame and
 * FPDU of an iWARP stream, numbered by the frame that completed it,
 * <pre>
 * #12 0.004011 10.77.1.11:7174 -> 10.77.1.12:49655 RDMA Read Request L=1 QN=1 MSN=1 MO=0 sink STag=0x0b2c6f00 TO=0x000055f214c5bee0 size=64 source STag=0xfe260900 TO=0x0000560607b96b80 payload=0 CRC off
 * </pre>
 * then a summary line: frames, RoCE v2 packets, ICRC failures, malformed packets and, when the capture
 * holds iWARP streams, the iWARP figures (streams, MPA frames, FPDUs, CRC failures, malformed).
 *
 * <p>Exit status: 0 when every RoCE v2 packet is well formed and has a correct ICRC (also when there are
 * none); 1 when one is not, or the capture ends in the middle of a record (a one-line message on
 * {@code err} names the first bad packet); 2 for a usage error or a file that cannot be read or is not a
 * capture (one line on {@code err}). Never prints a stack trace.
 */
public final class PcapCheck {
    /** Usage text, one line. */
    public static final String USAGE = "usage: jrdma pcap-check FILE [--port N]";

    private PcapCheck() {
    }

    /** Runs the check and exits the JVM with its status. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs {@code pcap-check} with the arguments after the command name.
     *
     * @return the exit status: 0 all good, 1 a bad packet or a damaged capture, 2 usage or not a capture
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String file = null;
        int port = RoceV2.UDP_PORT;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                out.println("  decodes every RoCE v2 packet (UDP destination port N, default 4791) of a pcap or"
                    + " pcapng capture, checks headers and ICRC; and every iWARP stream (TCP starting with an MPA"
                    + " Request/Reply): MPA frames, FPDU framing, MPA CRC, DDP/RDMAP headers;"
                    + " exit 0 all good, 1 a bad packet, 2 usage or not a capture");
                return 0;
            }
            String value = null;
            if (a.equals("--port")) {
                if (i + 1 == args.length) {
                    return usage(err, "--port needs a value");
                }
                value = args[++i];
            } else if (a.startsWith("--port=")) {
                value = a.substring("--port=".length());
            } else if (a.startsWith("-") && a.length() > 1) {
                return usage(err, "unknown option " + a);
            } else if (file == null) {
                file = a;
                continue;
            } else {
                return usage(err, "more than one FILE");
            }
            try {
                port = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                return usage(err, "--port must be 1..65535, not " + value);
            }
        }
        if (file == null) {
            return usage(err, "FILE missing");
        }
        try {
            return check(Path.of(file), file, port, out, err);
        } catch (RuntimeException e) {
            err.println("jrdma pcap-check: " + file + ": internal error: " + e);
            return 2;
        }
    }

    private static int usage(PrintStream err, String problem) {
        err.println("jrdma pcap-check: " + problem + "; " + USAGE);
        return 2;
    }

    private static int check(Path path, String name, int port, PrintStream out, PrintStream err) {
        if (Files.isDirectory(path)) {
            err.println("jrdma pcap-check: " + name + ": is a directory");
            return 2;
        }
        PcapReader r;
        try {
            r = PcapReader.open(path);
        } catch (NoSuchFileException e) {
            err.println("jrdma pcap-check: " + name + ": no such file");
            return 2;
        } catch (PcapFormatException e) {
            err.println("jrdma pcap-check: " + name + ": " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("jrdma pcap-check: " + name + ": cannot read: " + e.getMessage());
            return 2;
        }
        RoceFrameCheck checker = new RoceFrameCheck();
        StringBuilder line = new StringBuilder(256);
        long frames = 0;
        long roce = 0;
        long icrcFailures = 0;
        long malformed = 0;
        long snapped = 0;
        long firstTime = 0;
        MpaStreamCheck iwarp = new MpaStreamCheck(out::println);
        String firstBad = null;
        String damage = null;
        try (r) {
            while (r.next()) {
                frames++;
                if (frames == 1) {
                    firstTime = r.timestampNanos();
                }
                if (r.isTcp()) {
                    String at = "#" + r.frameNumber() + " " + seconds(r.timestampNanos() - firstTime) + " ";
                    iwarp.accept(r, f -> at + f.name());
                    continue;
                }
                if (!r.isUdp() || r.dstPort() != port) {
                    continue;
                }
                roce++;
                line.setLength(0);
                long t = r.timestampNanos() - firstTime;
                line.append('#').append(r.frameNumber()).append(' ')
                    .append(seconds(t))
                    .append(' ').append(endpoint(r.srcAddress(), r.ipVersion(), r.srcPort()))
                    .append(" -> ").append(endpoint(r.dstAddress(), r.ipVersion(), r.dstPort())).append(' ');
                int status = checker.check(r, line);
                out.println(line);
                if (status == DropReason.OK) {
                    continue;
                }
                if (status == DropReason.BAD_ICRC) {
                    icrcFailures++;
                } else if (status == RoceFrameCheck.SNAPPED) {
                    snapped++;
                } else {
                    malformed++;
                }
                if (firstBad == null) {
                    firstBad = "frame " + r.frameNumber() + ": " + RoceFrameCheck.describe(status);
                }
            }
        } catch (PcapFormatException e) {
            damage = e.getMessage();
        } catch (IOException e) {
            damage = "read error: " + e.getMessage();
        }
        iwarp.finish();
        String iw = iwarp.streams() == 0 ? "" : "; " + iwarp.streams() + " iWARP streams (TCP): " + iwarp.mpaFrames()
            + " MPA frames, " + iwarp.fpdus() + " FPDUs, " + iwarp.crcFailures() + " MPA CRC failures, " + iwarp.malformed()
            + " malformed" + (iwarp.nonZeroPads() > 0 ? ", " + iwarp.nonZeroPads() + " with non-zero pad" : "");
        out.println(name + ": " + frames + " frames, " + roce + " RoCE v2 packets (UDP port " + port + "), "
            + icrcFailures + " ICRC failures, " + malformed + " malformed"
            + (snapped > 0 ? ", " + snapped + " cut by the snap length" : "") + iw + (damage != null ? ", capture damaged" : ""));
        if (firstBad == null && iwarp.firstBad() != null) {
            firstBad = iwarp.firstBad();
        }
        if (firstBad != null) {
            err.println("jrdma pcap-check: " + name + ": " + firstBad);
        }
        if (damage != null) {
            err.println("jrdma pcap-check: " + name + ": " + damage);
        }
        return firstBad == null && damage == null ? 0 : 1;
    }

    private static String seconds(long t) {
        return String.format(Locale.ROOT, "%d.%06d", t / 1_000_000_000L, Math.abs(t % 1_000_000_000L) / 1000);
    }

    private static String endpoint(String address, int ipVersion, int port) {
        return ipVersion == 6 ? "[" + address + "]:" + port : address + ":" + port;
    }
}
