package org.jrdma.iwarp.pcap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jrdma.wire.internal.PcapStage;

/**
 * Writes TCP segments as a classic libpcap file (nanosecond magic 0xA1B23C4D, little-endian, link type
 * Ethernet) with synthesized Ethernet, IPv4 or IPv6 and TCP headers, so that Wireshark's TCP reassembly and
 * its iWARP dissectors ({@code iwarp_mpa}, {@code iwarp_ddp_rdmap}) and {@code jrdma pcap-check} read the MPA
 * stream of a connection made over a kernel TCP socket, whose headers the application never sees.
 * {@link Connection} keeps the sequence numbers of both directions of one connection.
 *
 * <p>Synthesized headers: Ethernet with locally administered MACs {@code 02:00:a:b:c:d} from the last 4
 * bytes of each IP address (as {@link org.jrdma.rocev2.pcap.PcapWriter}); IPv4 with IHL 5, DF, TTL 64, ID 0 and
 * a valid header checksum; IPv6 with hop limit 64; TCP with a 20-byte header (no options), window 65535
 * and a valid checksum (RFC 9293 §3.1, pseudo-header of RFC 791 / RFC 8200 §8.1).
 *
 * <p>Nothing allocates per segment after construction (one direct staging buffer, one channel write per
 * segment; the file header, record framing, Ethernet header and checksums are {@code PcapStage}'s, shared
 * with {@link org.jrdma.rocev2.pcap.PcapWriter}). Not thread-safe: one writer per thread, or lock.
 */
public final class TcpPcapWriter implements AutoCloseable {
    /** TCP flag FIN. */
    public static final int FIN = 0x01;
    /** TCP flag SYN. */
    public static final int SYN = 0x02;
    /** TCP flag RST. */
    public static final int RST = 0x04;
    /** TCP flag PSH. */
    public static final int PSH = 0x08;
    /** TCP flag ACK. */
    public static final int ACK = 0x10;
    /** The most payload one segment may carry (IPv6: 65535 - 20). */
    public static final int MAX_PAYLOAD = 65535 - 20;

    private static final int RECORD = PcapStage.RECORD;
    private static final int ETH = PcapStage.ETH;

    private final PcapStage pcap;
    private final ByteBuffer stage;

    /** One TCP connection's two directions: addresses, ports and the next sequence number of each side. */
    public final class Connection {
        private final boolean v6;
        private final int a4;
        private final int b4;
        private final long aHi;
        private final long aLo;
        private final long bHi;
        private final long bLo;
        private final int aPort;
        private final int bPort;
        private int aSeq;
        private int bSeq;

        private Connection(boolean v6, int a4, int b4, long aHi, long aLo, long bHi, long bLo, int aPort, int bPort,
                           int aIsn, int bIsn) {
            this.v6 = v6;
            this.a4 = a4;
            this.b4 = b4;
            this.aHi = aHi;
            this.aLo = aLo;
            this.bHi = bHi;
            this.bLo = bLo;
            this.aPort = aPort;
            this.bPort = bPort;
            this.aSeq = aIsn;
            this.bSeq = bIsn;
        }

        /** The three-way handshake: SYN (initiator), SYN+ACK, ACK; data then starts at ISN + 1 on both sides. */
        public void handshake(long timestampNanos) throws IOException {
            segment(timestampNanos, true, aSeq, 0, SYN, null, 0, 0);
            segment(timestampNanos, false, bSeq, aSeq + 1, SYN | ACK, null, 0, 0);
            aSeq++;
            bSeq++;
            segment(timestampNanos, true, aSeq, bSeq, ACK, null, 0, 0);
        }

        /**
         * Writes {@code buf[pos, pos+len)} as one segment (PSH, ACK) from the initiator ({@code fromInitiator})
         * or the responder, and advances that side's sequence number.
         *
         * @param len 0..{@link #MAX_PAYLOAD} (IPv4: 65515)
         */
        public void send(long timestampNanos, boolean fromInitiator, ByteBuffer buf, int pos, int len) throws IOException {
            int seq = fromInitiator ? aSeq : bSeq;
            int ack = fromInitiator ? bSeq : aSeq;
            segment(timestampNanos, fromInitiator, seq, ack, PSH | ACK, buf, pos, len);
            if (fromInitiator) {
                aSeq += len;
            } else {
                bSeq += len;
            }
        }

        /** The orderly close: FIN+ACK from {@code fromInitiator}'s side, FIN+ACK back, ACK. */
        public void close(long timestampNanos, boolean fromInitiator) throws IOException {
            boolean x = fromInitiator;
            segment(timestampNanos, x, seq(x), seq(!x), FIN | ACK, null, 0, 0);
            advance(x, 1);
            segment(timestampNanos, !x, seq(!x), seq(x), FIN | ACK, null, 0, 0);
            advance(!x, 1);
            segment(timestampNanos, x, seq(x), seq(!x), ACK, null, 0, 0);
        }

        /** One side's FIN (FIN+ACK), which takes one sequence number: a half close as it happens. */
        public void fin(long timestampNanos, boolean fromInitiator) throws IOException {
            segment(timestampNanos, fromInitiator, seq(fromInitiator), seq(!fromInitiator), FIN | ACK, null, 0, 0);
            advance(fromInitiator, 1);
        }

        /** An abortive close: RST from {@code fromInitiator}'s side. */
        public void reset(long timestampNanos, boolean fromInitiator) throws IOException {
            segment(timestampNanos, fromInitiator, seq(fromInitiator), seq(!fromInitiator), RST | ACK, null, 0, 0);
        }

        /**
         * Writes one raw segment with the given sequence and acknowledgment numbers and flags, not changing the
         * connection's counters (for tests: retransmissions, reordering).
         */
        public void segment(long timestampNanos, boolean fromInitiator, int seq, int ack, int flags, ByteBuffer buf,
                            int pos, int len) throws IOException {
            if (v6) {
                writeIpv6(timestampNanos, fromInitiator ? aHi : bHi, fromInitiator ? aLo : bLo, fromInitiator ? bHi : aHi,
                    fromInitiator ? bLo : aLo, fromInitiator ? aPort : bPort, fromInitiator ? bPort : aPort, seq, ack,
                    flags, buf, pos, len);
            } else {
                writeIpv4(timestampNanos, fromInitiator ? a4 : b4, fromInitiator ? b4 : a4, fromInitiator ? aPort : bPort,
                    fromInitiator ? bPort : aPort, seq, ack, flags, buf, pos, len);
            }
        }

        /** The next sequence number of the initiator's ({@code true}) or responder's side. */
        public int seq(boolean initiator) {
            return initiator ? aSeq : bSeq;
        }

        private void advance(boolean initiator, int n) {
            if (initiator) {
                aSeq += n;
            } else {
                bSeq += n;
            }
        }
    }

    /**
     * Creates (or truncates) {@code path} and writes the file header.
     *
     * @throws IOException if the file cannot be created or written
     */
    public static TcpPcapWriter create(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        try {
            return new TcpPcapWriter(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Writes the file header to {@code out}, which this writer then owns and closes. */
    public TcpPcapWriter(WritableByteChannel out) throws IOException {
        this.pcap = new PcapStage(out, ETH + 40 + 20 + MAX_PAYLOAD);
        this.stage = pcap.buffer();
    }

    /** A connection over IPv4 (addresses as big-endian ints), initiator {@code a}, with the given ISNs. */
    public Connection ipv4(int a, int aPort, int b, int bPort, int aIsn, int bIsn) {
        return new Connection(false, a, b, 0, 0, 0, 0, aPort, bPort, aIsn, bIsn);
    }

    /** A connection over IPv6 (addresses as two big-endian longs each), initiator {@code a}. */
    public Connection ipv6(long aHi, long aLo, int aPort, long bHi, long bLo, int bPort, int aIsn, int bIsn) {
        return new Connection(true, 0, 0, aHi, aLo, bHi, bLo, aPort, bPort, aIsn, bIsn);
    }

    /**
     * Appends one TCP segment over IPv4.
     *
     * @param buf holds the payload at {@code [pos, pos+len)}; may be null when len is 0
     * @param len 0..65515
     * @throws IllegalArgumentException if len is out of range
     * @throws IOException              from the channel
     */
    public void writeIpv4(long timestampNanos, int src, int dst, int srcPort, int dstPort, int seq, int ack, int flags,
                          ByteBuffer buf, int pos, int len) throws IOException {
        if (len < 0 || len > 65535 - 40) {
            throw new IllegalArgumentException("TCP payload over IPv4 must be 0..65495: " + len);
        }
        int ip = RECORD + ETH;
        int tcp = ip + 20;
        int frameLen = ETH + 20 + 20 + len;
        pcap.record(timestampNanos, frameLen);
        pcap.ethernet(src, dst, 0x0800);
        stage.put(ip, (byte) 0x45);
        stage.put(ip + 1, (byte) 0);
        put16(ip + 2, 40 + len);
        put16(ip + 4, 0);
        put16(ip + 6, 0x4000);
        stage.put(ip + 8, (byte) 64);
        stage.put(ip + 9, (byte) 6);
        put16(ip + 10, 0);
        put32(ip + 12, src);
        put32(ip + 16, dst);
        put16(ip + 10, ~sum16(ip, 20, 0) & 0xffff);
        tcpHeader(tcp, srcPort, dstPort, seq, ack, flags, buf, pos, len);
        int sum = sum16(ip + 12, 8, 0) + 6 + 20 + len;
        put16(tcp + 16, ~sum16(tcp, 20 + len, sum) & 0xffff);
        pcap.finish(frameLen);
    }

    /**
     * Appends one TCP segment over IPv6.
     *
     * @param len 0..65515
     * @see #writeIpv4
     */
    public void writeIpv6(long timestampNanos, long srcHi, long srcLo, long dstHi, long dstLo, int srcPort, int dstPort,
                          int seq, int ack, int flags, ByteBuffer buf, int pos, int len) throws IOException {
        if (len < 0 || len > MAX_PAYLOAD) {
            throw new IllegalArgumentException("TCP payload over IPv6 must be 0.." + MAX_PAYLOAD + ": " + len);
        }
        int ip = RECORD + ETH;
        int tcp = ip + 40;
        int frameLen = ETH + 40 + 20 + len;
        pcap.record(timestampNanos, frameLen);
        pcap.ethernet((int) srcLo, (int) dstLo, 0x86dd);
        put32(ip, 0x60000000);
        put16(ip + 4, 20 + len);
        stage.put(ip + 6, (byte) 6);
        stage.put(ip + 7, (byte) 64);
        put64(ip + 8, srcHi);
        put64(ip + 16, srcLo);
        put64(ip + 24, dstHi);
        put64(ip + 32, dstLo);
        tcpHeader(tcp, srcPort, dstPort, seq, ack, flags, buf, pos, len);
        int sum = sum16(ip + 8, 32, 0) + 6 + 20 + len;
        put16(tcp + 16, ~sum16(tcp, 20 + len, sum) & 0xffff);
        pcap.finish(frameLen);
    }

    /** Frames written so far. */
    public long framesWritten() {
        return pcap.frames();
    }

    @Override
    public void close() throws IOException {
        pcap.close();
    }

    private void tcpHeader(int t, int srcPort, int dstPort, int seq, int ack, int flags, ByteBuffer buf, int pos, int len) {
        put16(t, srcPort);
        put16(t + 2, dstPort);
        put32(t + 4, seq);
        put32(t + 8, (flags & ACK) != 0 ? ack : 0);
        put16(t + 12, (5 << 12) | (flags & 0xff));
        put16(t + 14, 0xffff);
        put16(t + 16, 0);
        put16(t + 18, 0);
        if (len > 0) {
            stage.put(t + 20, buf, pos, len);
        }
    }

    private void put16(int at, int v) {
        pcap.put16(at, v);
    }

    private void put32(int at, int v) {
        pcap.put32(at, v);
    }

    private void put64(int at, long v) {
        pcap.put64(at, v);
    }

    private int sum16(int at, int n, int sum) {
        return pcap.sum16(at, n, sum);
    }
}
