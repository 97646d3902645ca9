package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.jrdma.iwarp.pcap.TcpPcapWriter;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.PacketCapture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PacketCapture} of an open iWARP device: the TCP byte streams of its connections, as
 * the sockets took and gave them, written as a classic pcap of synthesized Ethernet/IP/TCP frames
 * ({@link TcpPcapWriter}) that Wireshark's {@code iwarp_mpa}/{@code iwarp_ddp_rdmap} dissectors and
 * {@code jrdma pcap-check} read. Each connection appears with a three-way handshake when it is first
 * seen by the running capture (its first bytes after the capture started; a capture started in the
 * middle of a connection therefore lacks that connection's MPA exchange), one segment per socket
 * read or write (cut at 65,000 bytes), each side's FIN when it happens, and a RST on an abort. The
 * synthesized headers are not the kernel's: sequence numbers start at fixed ISNs, there are no
 * retransmissions, window 65535, no options.
 *
 * <p>Started at open time by {@code -Djrdma.pcap.DEVICE=FILE} or {@code -Djrdma.pcap=FILE} (as the
 * RoCE devices), or at run time through {@code ctx.extension(PacketCapture.class)}. A write error
 * stops the capture (logged), never the traffic.
 *
 * <p>Threads and locks: called by the I/O thread (reads, closes) and by posting threads (writes,
 * under the connection's {@code txLock}); the capture's own monitor is a leaf lock taken inside
 * those. When no capture runs a call costs one volatile read. Nothing allocates per segment.
 */
public final class SiwCapture implements PacketCapture {
    private static final Logger LOG = LoggerFactory.getLogger(SiwCapture.class);
    /** Payload bytes per synthesized segment (under IPv4's 65,495). */
    static final int SEGMENT = 65_000;
    private static final int ISN_INITIATOR = 0x1000_0000;
    private static final int ISN_RESPONDER = 0x2000_0000;

    private final String device;
    private volatile boolean on;
    private TcpPcapWriter writer;
    private int generation;
    private final long wallBase = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

    SiwCapture(String device) {
        this.device = device;
    }

    /** One connection as the capture sees it (owned by its {@link SiwConnection}, used under the capture's lock). */
    static final class Flow {
        final boolean initiator;
        private TcpPcapWriter.Connection conn;
        private int generation;

        Flow(boolean initiator) {
            this.initiator = initiator;
        }
    }

    @Override
    public synchronized void start(Path file) {
        if (writer != null) {
            throw new VerbsException(Errno.EBUSY, device + ": a capture is running");
        }
        try {
            writer = TcpPcapWriter.create(file);
        } catch (IOException e) {
            throw new VerbsException(Errno.EIO, device + ": capture file " + file + ": " + e.getMessage());
        }
        generation++;
        on = true;
    }

    @Override
    public synchronized long stop() {
        if (writer == null) {
            return 0;
        }
        long n = writer.framesWritten();
        closeWriter();
        return n;
    }

    @Override
    public boolean capturing() {
        return on;
    }

    @Override
    public synchronized long frames() {
        return writer == null ? 0 : writer.framesWritten();
    }

    private void closeWriter() {
        on = false;
        try {
            writer.close();
        } catch (IOException e) {
            LOG.debug("{}: capture close: {}", device, e.toString());
        }
        writer = null;
    }

    private long now() {
        return wallBase + System.nanoTime();
    }

    /** The flow's connection in the running capture, made (with its handshake) on first use. Under the lock. */
    private TcpPcapWriter.Connection conn(Flow f, SiwConnection c) throws IOException {
        if (f.conn != null && f.generation == generation) {
            return f.conn;
        }
        InetSocketAddress local = c.localAddress();
        InetSocketAddress remote = c.remoteAddress();
        if (local == null || remote == null) {
            return null;
        }
        InetSocketAddress a = f.initiator ? local : remote;
        InetSocketAddress b = f.initiator ? remote : local;
        TcpPcapWriter.Connection x;
        if (a.getAddress() instanceof Inet4Address && b.getAddress() instanceof Inet4Address) {
            x = writer.ipv4(ByteBuffer.wrap(a.getAddress().getAddress()).getInt(), a.getPort(),
                    ByteBuffer.wrap(b.getAddress().getAddress()).getInt(), b.getPort(), ISN_INITIATOR, ISN_RESPONDER);
        } else {
            ByteBuffer ab = ByteBuffer.wrap(v6(a));
            ByteBuffer bb = ByteBuffer.wrap(v6(b));
            x = writer.ipv6(ab.getLong(), ab.getLong(), a.getPort(), bb.getLong(), bb.getLong(), b.getPort(),
                    ISN_INITIATOR, ISN_RESPONDER);
        }
        x.handshake(now());
        f.conn = x;
        f.generation = generation;
        return x;
    }

    private static byte[] v6(InetSocketAddress s) {
        byte[] a = s.getAddress().getAddress();
        if (a.length == 16) {
            return a;
        }
        byte[] m = new byte[16]; // an IPv4 address in an IPv6 flow: ::ffff:a.b.c.d
        m[10] = (byte) 0xff;
        m[11] = (byte) 0xff;
        System.arraycopy(a, 0, m, 12, 4);
        return m;
    }

    /** {@code buf[pos, pos+len)} went out ({@code outbound}) or came in on {@code c}'s socket. */
    void data(Flow f, SiwConnection c, boolean outbound, ByteBuffer buf, int pos, int len) {
        if (!on || len <= 0) {
            return;
        }
        synchronized (this) {
            if (writer == null) {
                return;
            }
            try {
                TcpPcapWriter.Connection x = conn(f, c);
                if (x == null) {
                    return;
                }
                boolean fromInitiator = outbound == f.initiator;
                for (int o = 0; o < len; o += SEGMENT) {
                    x.send(now(), fromInitiator, buf, pos + o, Math.min(SEGMENT, len - o));
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: capture stopped: {}", device, e.toString());
                closeWriter();
            }
        }
    }

    /** A FIN from this side ({@code outbound}) or the peer; or with {@code reset} a RST from this side. */
    void end(Flow f, SiwConnection c, boolean outbound, boolean reset) {
        if (!on) {
            return;
        }
        synchronized (this) {
            if (writer == null) {
                return;
            }
            try {
                TcpPcapWriter.Connection x = conn(f, c);
                if (x == null) {
                    return;
                }
                boolean fromInitiator = outbound == f.initiator;
                if (reset) {
                    x.reset(now(), fromInitiator);
                } else {
                    x.fin(now(), fromInitiator);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: capture stopped: {}", device, e.toString());
                closeWriter();
            }
        }
    }
}
