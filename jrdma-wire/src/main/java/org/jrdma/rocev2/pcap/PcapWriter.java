package org.jrdma.rocev2.pcap;

import java.io.Flushable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jrdma.rocev2.wire.PacketBuffer;

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
 * staging buffer and written with one channel write. Not thread-safe: one writer per thread, or lock.
 */
public final class PcapWriter implements AutoCloseable, Flushable {
    /** Snap length recorded in the file header, bytes. */
    public static final int SNAPLEN = 262144;
    private static final int MAX_UDP_PAYLOAD = 65535 - 8;
    private static final int RECORD = 16;
    private static final int ETH = 14;
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final WritableByteChannel out;
    private final ByteBuffer stage;
    private final MemorySegment stageSeg;
    private long frames;

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
        this.out = out;
        this.stage = ByteBuffer.allocateDirect(RECORD + ETH + 40 + 8 + MAX_UDP_PAYLOAD).order(ByteOrder.LITTLE_ENDIAN);
        this.stageSeg = MemorySegment.ofBuffer(stage);
        stage.clear();
        stage.putInt(0xA1B23C4D);     // nanosecond time stamps
        stage.putShort((short) 2);
        stage.putShort((short) 4);
        stage.putInt(0);              // reserved (thiszone)
        stage.putInt(0);              // reserved (sigfigs)
        stage.putInt(SNAPLEN);
        stage.putInt(PcapReader.LINKTYPE_ETHERNET);
        stage.flip();
        writeStage();
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
        record(timestampNanos, frameLen);
        ethernet(srcAddr, dstAddr, 0x0800);
        ByteBuffer s = stage;
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
        s.limit(RECORD + frameLen).position(0);
        writeStage();
        frames++;
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
        record(timestampNanos, frameLen);
        ethernet((int) srcLo, (int) dstLo, 0x86dd);
        put32(ip, 0x60000000 | ((trafficClass & 0xff) << 20) | (flowLabel & 0xfffff));
        put16(ip + 4, 8 + len);
        stage.put(ip + 6, (byte) 17);
        stage.put(ip + 7, (byte) hopLimit);
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
        stage.limit(RECORD + frameLen).position(0);
        writeStage();
        frames++;
    }

    /** Frames written so far. */
    public long framesWritten() {
        return frames;
    }

    /** Forces written frames to the storage device when the channel is a {@link FileChannel}. */
    @Override
    public void flush() throws IOException {
        if (out instanceof FileChannel fc) {
            fc.force(false);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    // ---------------------------------------------------------------------------------------------

    private static void checkLen(int len, int ipHeader) {
        if (len < 0 || len > 65535 - ipHeader - 8) {
            throw new IllegalArgumentException("UDP payload length " + len + " outside 0.." + (65535 - ipHeader - 8));
        }
    }

    private void record(long timestampNanos, int frameLen) {
        long sec = Math.floorDiv(timestampNanos, 1_000_000_000L);
        long ns = Math.floorMod(timestampNanos, 1_000_000_000L);
        stage.clear();
        stage.putInt(0, (int) sec);
        stage.putInt(4, (int) ns);
        stage.putInt(8, frameLen);
        stage.putInt(12, frameLen);
    }

    private void ethernet(int srcLow, int dstLow, int etherType) {
        int e = RECORD;
        put16(e, 0x0200);
        put32(e + 2, dstLow);
        put16(e + 6, 0x0200);
        put32(e + 8, srcLow);
        put16(e + 12, etherType);
    }

    private void writeStage() throws IOException {
        while (stage.hasRemaining()) {
            out.write(stage);
        }
    }

    private void put16(int at, int v) {
        stageSeg.set(BE16, at, (short) v);
    }

    private void put32(int at, int v) {
        put16(at, v >>> 16);
        put16(at + 2, v);
    }

    private void put64(int at, long v) {
        put32(at, (int) (v >>> 32));
        put32(at + 4, (int) v);
    }

    /** Adds the 16-bit big-endian words of stage[at, at+n) (a last odd byte padded with 0) to sum. */
    private int sum16(int at, int n, int sum) {
        long s = sum & 0xffffffffL;
        int i = 0;
        for (; i + 1 < n; i += 2) {
            s += stageSeg.get(BE16, at + i) & 0xffff;
        }
        if (i < n) {
            s += (stageSeg.get(ValueLayout.JAVA_BYTE, at + i) & 0xff) << 8;
        }
        return fold(s);
    }

    private static int fold(long s) {
        while ((s >>> 16) != 0) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }
}
