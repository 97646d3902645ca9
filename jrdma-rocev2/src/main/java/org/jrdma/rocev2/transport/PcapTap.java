package org.jrdma.rocev2.transport;

import java.io.IOException;
import java.nio.file.Path;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.pcap.PcapWriter;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.RoceV2;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-stack packet capture: every packet a device sends and receives, written to a classic pcap file
 * with Ethernet framing and IP/UDP headers as they went on the wire where known ({@link PcapWriter}),
 * so that Wireshark dissects it as RoCE v2 and {@code jrdma pcap-check} checks its ICRCs. It sits
 * right on the network side (inside a fault shim), so it records what the wire carried. Over IPv4
 * through an ordinary UDP socket the kernel chooses the Identification of sent packets, which no one
 * can see: the capture shows 0 there (and pcap-check reports the ICRC of those packets as matching
 * another ID); the raw IPv4 port and IPv6 record exact headers. Every device has one; it passes
 * packets through untouched until {@link #start(Path)} (at open time with {@code -Djrdma.pcap=FILE}
 * or {@code -Djrdma.pcap.NAME=FILE}; at run time through the verbs extension
 * {@code org.jrdma.verbs.ext.PacketCapture}) and again after {@link #stop()}. A write error stops
 * the capture (logged once); it never disturbs the traffic. Each packet of a train and of a burst
 * is recorded as its own frame (a train's packet {@code i} with Identification
 * {@code firstIpv4Id + i}).
 *
 * <p>Threads: those of {@link PacketPort}; frames are written under the writer's lock, so that
 * sending and receiving threads interleave whole frames; start and stop (any thread) take this
 * tap's monitor, then the writer's. While no capture runs a packet costs one volatile read.
 */
public final class PcapTap extends ForwardingPacketPort {
    private static final Logger LOG = LoggerFactory.getLogger(PcapTap.class);
    /** The running capture's writer, null when none runs. */
    private volatile PcapWriter writer;
    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;
    private final long epochOffsetNanos;
    /** The IPv4 TOS / IPv6 Traffic Class the device's packets leave with (recorded for sent frames). */
    private volatile int sentTrafficClass;

    /** Taps {@code inner}, a port of a device with the given address; no capture runs yet. */
    public PcapTap(PacketPort inner, boolean ipv6, int ipv4, long ipv6Hi, long ipv6Lo) {
        super(inner);
        this.ipv6 = ipv6;
        this.ipv4 = ipv4;
        this.ipv6Hi = ipv6Hi;
        this.ipv6Lo = ipv6Lo;
        this.epochOffsetNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    }

    /** Opens {@code file} and taps {@code inner}, capturing from now on. */
    public PcapTap(PacketPort inner, Path file, boolean ipv6, int ipv4, long ipv6Hi, long ipv6Lo) throws IOException {
        this(inner, ipv6, ipv4, ipv6Hi, ipv6Lo);
        start(file);
    }

    /**
     * Starts a capture into {@code file} (created or truncated).
     *
     * @throws IllegalStateException when one runs
     * @throws IOException when the file cannot be written
     */
    public synchronized void start(Path file) throws IOException {
        if (writer != null) {
            throw new IllegalStateException("a capture is running");
        }
        writer = PcapWriter.create(file);
    }

    /** Stops the running capture and closes its file. @return its frames (0 when none ran) */
    public synchronized long stop() {
        PcapWriter w = writer;
        if (w == null) {
            return 0;
        }
        writer = null;
        synchronized (w) {
            long n = w.framesWritten();
            try {
                w.close();
            } catch (IOException e) {
                LOG.warn("closing the packet capture: {}", e.toString());
            }
            return n;
        }
    }

    /**
     * The IPv4 TOS / IPv6 Traffic Class byte the port writes into sent packets (0–255; default 0),
     * so that the frames of sent packets show it (received frames show what arrived, where the port
     * saw it).
     */
    public void sentTrafficClass(int tc) {
        this.sentTrafficClass = tc & 0xff;
    }

    /** Whether a capture runs. */
    public boolean capturing() {
        return writer != null;
    }

    @Override
    public boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        boolean ok = inner.send(buf, len, dst, srcPort, ipv4Id);
        PcapWriter w = writer;
        if (ok && w != null) {
            int sport = inner.sourcePort(srcPort);
            synchronized (w) {
                if (w != writer) {
                    return ok; // stopped meanwhile
                }
                try {
                    long ts = epochOffsetNanos + System.nanoTime();
                    if (ipv6) {
                        w.writeIpv6(ts, ipv6Hi, ipv6Lo, dst.ipv6Hi(), dst.ipv6Lo(), sentTrafficClass, 0, 64, sport, dst.port(),
                                buf, 0, len);
                    } else {
                        w.writeIpv4(ts, ipv4, dst.ipv4(), ipv4Id, 0x4000, sentTrafficClass, 64, sport, dst.port(), buf, 0,
                                len);
                    }
                } catch (IOException | RuntimeException e) {
                    fail(w, e);
                }
            }
        }
        return ok;
    }

    @Override
    public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                         int firstIpv4Id) {
        int n = inner.sendTrain(buf, segmentSize, count, lastLength, dst, srcPort, firstIpv4Id);
        PcapWriter w = writer;
        if (n > 0 && w != null) {
            int sport = inner.sourcePort(srcPort);
            synchronized (w) {
                if (w != writer) {
                    return n;
                }
                try {
                    long ts = epochOffsetNanos + System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        int off = i * segmentSize;
                        int len = i == count - 1 ? lastLength : segmentSize;
                        if (ipv6) {
                            w.writeIpv6(ts, ipv6Hi, ipv6Lo, dst.ipv6Hi(), dst.ipv6Lo(), sentTrafficClass, 0, 64, sport,
                                    dst.port(), buf, off, len);
                        } else {
                            int id = firstIpv4Id == 0 ? 0 : (firstIpv4Id + i) & 0xFFFF;
                            w.writeIpv4(ts, ipv4, dst.ipv4(), id, 0x4000, sentTrafficClass, 64, sport, dst.port(), buf,
                                    off, len);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    fail(w, e);
                }
            }
        }
        return n;
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        int n = inner.receive(buf, from);
        PcapWriter w = writer;
        if (n > 0 && w != null) {
            synchronized (w) {
                if (w == writer) {
                    capture(w, buf, n, from, inner.lastIpv4IdAndFlags(), inner.lastTrafficClass());
                }
            }
        }
        return n;
    }

    @Override
    public int receiveBurst(PacketBurst burst) {
        int n = inner.receiveBurst(burst);
        PcapWriter w = writer;
        if (n > 0 && w != null) {
            synchronized (w) {
                for (int i = 0; i < n && w == writer; i++) {
                    if (burst.length(i) > 0) {
                        capture(w, burst.buffer(i), burst.length(i), burst.from(i), burst.ipv4IdAndFlags(i),
                                burst.trafficClass(i));
                    }
                }
            }
        }
        return n;
    }

    /** Writes one received packet; under the writer's lock. */
    private void capture(PcapWriter w, PacketBuffer buf, int n, SockAddr from, long idFlags, int tc) {
        int tclass = Math.max(tc, 0);
        try {
            long ts = epochOffsetNanos + System.nanoTime();
            if (ipv6) {
                w.writeIpv6(ts, from.ipv6Hi(), from.ipv6Lo(), ipv6Hi, ipv6Lo, tclass, 0, 64, from.port(),
                        RoceV2.UDP_PORT, buf, 0, n);
            } else {
                w.writeIpv4(ts, from.ipv4(), ipv4, idFlags >= 0 ? (int) (idFlags >>> 16) : 0,
                        idFlags >= 0 ? (int) (idFlags & 0xFFFF) : 0x4000, tclass, 64, from.port(), RoceV2.UDP_PORT,
                        buf, 0, n);
            }
        } catch (IOException | RuntimeException e) {
            fail(w, e);
        }
    }

    /** A write failed: the capture stops (under the writer's lock; its file is closed). */
    private void fail(PcapWriter w, Exception e) {
        if (w == writer) {
            writer = null;
            LOG.warn("packet capture stopped: {}", e.toString());
            try {
                w.close();
            } catch (IOException | RuntimeException ignored) {
                // already reported the first failure
            }
        }
    }

    /** Frames written so far by the running capture (0 when none runs). */
    public long frames() {
        PcapWriter w = writer;
        if (w == null) {
            return 0;
        }
        synchronized (w) {
            return w.framesWritten();
        }
    }

    @Override
    public void close() {
        stop();
        inner.close();
    }
}
