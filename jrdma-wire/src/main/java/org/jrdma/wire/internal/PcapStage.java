package org.jrdma.wire.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The part of a classic libpcap writer that does not depend on what is captured, shared by
 * {@code org.jrdma.rocev2.pcap.PcapWriter} (RoCE v2 over UDP) and {@code org.jrdma.iwarp.pcap.TcpPcapWriter}
 * (MPA over TCP): the file header (nanosecond magic 0xA1B23C4D, little-endian, version 2.4, snap
 * length 262144, link type Ethernet), one direct staging buffer in which a frame is assembled (record
 * header at 0, Ethernet at {@link #ETH_AT}, then the caller's IP and transport headers and payload),
 * the synthesized Ethernet header (locally administered MACs {@code 02:00:a:b:c:d} from the last 4
 * bytes of each IP address), big-endian field stores and the RFC 1071 one's-complement sum over
 * the staged bytes. One channel write per frame; nothing allocates per frame. Not thread-safe. This
 * package is not exported.
 */
public final class PcapStage {
    /** Snap length recorded in the file header, bytes. */
    public static final int SNAPLEN = 262144;
    /** {@code LINKTYPE_ETHERNET}. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Bytes of the pcap record header. */
    public static final int RECORD = 16;
    /** Where the Ethernet header starts in the stage. */
    public static final int ETH_AT = RECORD;
    /** Bytes of the Ethernet header. */
    public static final int ETH = 14;
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final WritableByteChannel out;
    private final ByteBuffer stage;
    private final MemorySegment seg;
    private long frames;

    /**
     * Writes the file header to {@code out} (which this stage then owns and closes) and keeps a
     * stage for frames of up to {@code maxFrame} bytes (Ethernet included).
     */
    public PcapStage(WritableByteChannel out, int maxFrame) throws IOException {
        this.out = out;
        this.stage = ByteBuffer.allocateDirect(RECORD + maxFrame).order(ByteOrder.LITTLE_ENDIAN);
        this.seg = MemorySegment.ofBuffer(stage);
        stage.clear();
        stage.putInt(0xA1B23C4D); // nanosecond time stamps
        stage.putShort((short) 2);
        stage.putShort((short) 4);
        stage.putInt(0);          // thiszone
        stage.putInt(0);          // sigfigs
        stage.putInt(SNAPLEN);
        stage.putInt(LINKTYPE_ETHERNET);
        stage.flip();
        write();
    }

    /** The staging buffer (positions are absolute; the caller writes its headers with the put methods or absolute puts). */
    public ByteBuffer buffer() {
        return stage;
    }

    /** The staging buffer as a segment. */
    public MemorySegment segment() {
        return seg;
    }

    /** Starts a frame of {@code frameLen} bytes: the record header (time stamp, lengths). */
    public void record(long timestampNanos, int frameLen) {
        stage.clear();
        stage.putInt(0, (int) Math.floorDiv(timestampNanos, 1_000_000_000L));
        stage.putInt(4, (int) Math.floorMod(timestampNanos, 1_000_000_000L));
        stage.putInt(8, frameLen);
        stage.putInt(12, frameLen);
    }

    /** The Ethernet header: MACs {@code 02:00} + the low 32 bits of each address, then {@code etherType}. */
    public void ethernet(int srcLow, int dstLow, int etherType) {
        put16(ETH_AT, 0x0200);
        put32(ETH_AT + 2, dstLow);
        put16(ETH_AT + 6, 0x0200);
        put32(ETH_AT + 8, srcLow);
        put16(ETH_AT + 12, etherType);
    }

    /** Writes the staged frame of {@code frameLen} bytes (after its record header) and counts it. */
    public void finish(int frameLen) throws IOException {
        stage.limit(RECORD + frameLen).position(0);
        write();
        frames++;
    }

    /** Frames written so far. */
    public long frames() {
        return frames;
    }

    /** Forces written frames to the storage device when the channel is a {@link FileChannel}. */
    public void force() throws IOException {
        if (out instanceof FileChannel fc) {
            fc.force(false);
        }
    }

    public void close() throws IOException {
        out.close();
    }

    private void write() throws IOException {
        while (stage.hasRemaining()) {
            out.write(stage);
        }
    }

    public void put16(int at, int v) {
        seg.set(BE16, at, (short) v);
    }

    public void put32(int at, int v) {
        put16(at, v >>> 16);
        put16(at + 2, v);
    }

    public void put64(int at, long v) {
        put32(at, (int) (v >>> 32));
        put32(at + 4, (int) v);
    }

    /** Adds the 16-bit big-endian words of stage[at, at+n) (a last odd byte padded with 0) to {@code sum}, folded to 16 bits. */
    public int sum16(int at, int n, int sum) {
        long s = sum & 0xffffffffL;
        int i = 0;
        for (; i + 1 < n; i += 2) {
            s += seg.get(BE16, at + i) & 0xffff;
        }
        if (i < n) {
            s += (seg.get(ValueLayout.JAVA_BYTE, at + i) & 0xff) << 8;
        }
        return fold(s);
    }

    /** Folds a one's-complement sum to 16 bits. */
    public static int fold(long s) {
        while ((s >>> 16) != 0) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }
}
