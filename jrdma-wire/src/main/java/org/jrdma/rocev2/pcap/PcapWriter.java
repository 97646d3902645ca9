package org.jrdma.rocev2.pcap;

import java.io.Flushable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.wire.internal.PcapStage;

/**
 * Writes RoCE v2 packets as a classic libpcap file (nanosecond magic 0xA1B23C4D, little-endian, link type
 * Ethernet, snap length 262144) with synthesized Ethernet, IPv4 or IPv6, and UDP headers around each
 * packet, so Wireshark/tshark dissect it as they would a capture of the wire. This is the device's capture
 * option: a software device sends through a UDP socket and never sees the headers the kernel adds.
 *
 * <p>Synthesized headers: Ethernet with locally administered MACs {@code 02:00:a:b:c:d} made of the last 4
 * bytes of each IP address; IPv4 with IHL 5, the given TOS, ID, flags/fragment offset and TTL, protocol 17
 * and a valid header checksum (RFC 791); IPv6 with the given traffic class, flow label and hop limit; UDP
 * with the given ports and length, checksum 0 over IPv4 (none, as rxe sends) and a computed checksum over
 * IPv6 (RFC 8200 §8.1: zero is not allowed there).
 *
 * <p>After construction nothing allocates per packet: headers and payload are assembled in one direct
 * staging buffer and written with one channel write (the file header, record framing, Ethernet header and
 * checksum helpers are {@code PcapStage}'s, shared with {@link org.jrdma.iwarp.pcap.TcpPcapWriter}). Not
 * thread-safe: one writer per thread, or lock.
 */
public final class PcapWriter implements AutoCloseable, Flushable {
    /** Snap length recorded in the file header, bytes. */
    public static final int SNAPLEN = PcapStage.SNAPLEN;
    private static final int MAX_UDP_PAYLOAD = 65535 - 8;
    private static final int RECORD = PcapStage.RECORD;
    private static final int ETH = PcapStage.ETH;

    private final PcapStage stage;
    private final ByteBuffer s;
    private final MemorySegment stageSeg;

    /**
     * Creates (or truncates) {@code path} and writes the file header.
     *
     * @throws IOException if the file cannot be created or written
     */
    public static PcapWriter create(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        try {
            return new PcapWriter(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Writes the file header to {@code out}, which this writer then owns and closes. */
    public PcapWriter(WritableByteChannel out) throws IOException {
        this.stage = new PcapStage(out, ETH + 40 + 8 + MAX_UDP_PAYLOAD);
        this.s = stage.buffer();
        this.stageSeg = stage.segment();
    }

    /**
     * Appends one RoCE v2 packet carried over IPv4.
     *
     * @param timestampNanos ns since 1970-01-01 UTC
     * @param srcAddr        IPv4 source address as a big-endian int
     * @param dstAddr        IPv4 destination address
     * @param ipId           Identification 0..0xFFFF
     * @param flagsFragOff   flags + fragment offset (0x4000 = DF, as rxe sends)
     * @param tos            DSCP + ECN, 0..255
     * @param ttl            0..255
     * @param srcPort        UDP source port
     * @param dstPort        UDP destination port (4791)
     * @param buf            holds the UDP payload (BTH .. ICRC) at {@code [pos, pos+len)}
     * @param len            0..65507 bytes
     * @throws IllegalArgumentException  if len is out of range
     * @throws IndexOutOfBoundsException if the range is outside {@code buf}
     * @throws IOException               from the channel
     */
    public void writeIpv4(long timestampNanos, int srcAddr, int dstAddr, int ipId, int flagsFragOff, int tos, int ttl,
                          int srcPort, int dstPort, PacketBuffer buf, int pos, int len) throws IOException {
        checkLen(len, 20);
        int ip = RECORD + ETH;
        int udp = ip + 20;
        int frameLen = ETH + 20 + 8 + len;
        stage.record(timestampNanos, frameLen);
        stage.ethernet(srcAddr, dstAddr, 0x0800);
        s.put(ip, (byte) 0x45);
        s.put(ip + 1, (byte) tos);
        put16(ip + 2, 20 + 8 + len);
        put16(ip + 4, ipId);
        put16(ip + 6, flagsFragOff);
        s.put(ip + 8, (byte) ttl);
        s.put(ip + 9, (byte) 17);
        put16(ip + 10, 0);
        put32(ip + 12, srcAddr);
        put32(ip + 16, dstAddr);
        put16(ip + 10, ~sum16(ip, 20, 0) & 0xffff);
        put16(udp, srcPort);
        put16(udp + 2, dstPort);
        put16(udp + 4, 8 + len);
        put16(udp + 6, 0);
        MemorySegment.copy(buf.seg, pos, stageSeg, udp + 8, len);
        stage.finish(frameLen);
    }

    /**
     * Appends one RoCE v2 packet carried over IPv6. Addresses are two big-endian longs each.
     *
     * @param trafficClass 0..255 (DSCP + ECN)
     * @param flowLabel    20 bits
     * @param hopLimit     0..255
     * @see #writeIpv4
     */
    public void writeIpv6(long timestampNanos, long srcHi, long srcLo, long dstHi, long dstLo, int trafficClass,
                          int flowLabel, int hopLimit, int srcPort, int dstPort, PacketBuffer buf, int pos, int len)
        throws IOException {
        checkLen(len, 40);
        int ip = RECORD + ETH;
        int udp = ip + 40;
        int frameLen = ETH + 40 + 8 + len;
        stage.record(timestampNanos, frameLen);
        stage.ethernet((int) srcLo, (int) dstLo, 0x86dd);
        put32(ip, 0x60000000 | ((trafficClass & 0xff) << 20) | (flowLabel & 0xfffff));
        put16(ip + 4, 8 + len);
        s.put(ip + 6, (byte) 17);
        s.put(ip + 7, (byte) hopLimit);
        put64(ip + 8, srcHi);
        put64(ip + 16, srcLo);
        put64(ip + 24, dstHi);
        put64(ip + 32, dstLo);
        put16(udp, srcPort);
        put16(udp + 2, dstPort);
        put16(udp + 4, 8 + len);
        put16(udp + 6, 0);
        MemorySegment.copy(buf.seg, pos, stageSeg, udp + 8, len);
        // pseudo-header: addresses, UDP length, next header (RFC 8200 §8.1)
        int sum = sum16(ip + 8, 32, 0);
        sum += 8 + len;
        sum += 17;
        sum = sum16(udp, 8 + len, sum);
        int c = ~fold(sum) & 0xffff;
        put16(udp + 6, c == 0 ? 0xffff : c);
        stage.finish(frameLen);
    }

    /** Frames written so far. */
    public long framesWritten() {
        return stage.frames();
    }

    /** Forces written frames to the storage device when the channel is a {@link FileChannel}. */
    @Override
    public void flush() throws IOException {
        stage.force();
    }

    @Override
    public void close() throws IOException {
        stage.close();
    }

    // ---------------------------------------------------------------------------------------------

    private static void checkLen(int len, int ipHeader) {
        if (len < 0 || len > 65535 - ipHeader - 8) {
            throw new IllegalArgumentException("UDP payload length " + len + " outside 0.." + (65535 - ipHeader - 8));
        }
    }

    private void put16(int at, int v) {
        stage.put16(at, v);
    }

    private void put32(int at, int v) {
        stage.put32(at, v);
    }

    private void put64(int at, long v) {
        stage.put64(at, v);
    }

    private int sum16(int at, int n, int sum) {
        return stage.sum16(at, n, sum);
    }

    private static int fold(long s) {
        return PcapStage.fold(s);
    }
}
