package org.jrdma.rocev2.pcap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads packet captures frame by frame and decodes each frame down to its UDP payload, or its TCP payload
 * ({@link #isTcp()}, for iWARP streams).
 *
 * <p>Formats: classic libpcap (both byte orders; microsecond magic 0xA1B2C3D4 and nanosecond magic
 * 0xA1B23C4D) and pcapng (Section Header, Interface Description with {@code if_tsresol} and
 * {@code if_tsoffset}, Enhanced Packet, Simple Packet and the obsolete Packet block; several sections;
 * other blocks are skipped). Link types: Ethernet (1, with 802.1Q / 802.1ad tags), Linux cooked SLL (113)
 * and SLL2 (276), and raw IP (101, 228, 229). Sources: the libpcap file format (draft-ietf-opsawg-pcap),
 * pcapng (draft-ietf-opsawg-pcapng), tcpdump.org link-layer header types.
 *
 * <p>Use: {@code while (r.next()) { ... r.udpPayloadOffset() ... }}. The accessors describe the current
 * frame; {@link #data()} is a buffer reused by the next call to {@link #next()}. Frames that are not IP, not
 * UDP or are IP fragments other than the first one are still returned ({@link #ipVersion()} 0,
 * {@link #isUdp()} false). Decoding a frame never throws: a frame too short for the headers it announces
 * is reported by {@link #isUdp()} false or {@link #udpTruncated()} true.
 *
 * <p>Errors: {@link PcapFormatException} (an {@link IOException}) with a one-line message when the input
 * is not a capture ({@link #open}, constructor) or when a record is cut short or has an impossible length
 * ({@link #next()}); other {@link IOException}s come from the stream. Not thread-safe.
 */
public final class PcapReader implements AutoCloseable {
    /** Link type Ethernet (DLT_EN10MB). */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Link type raw IPv4 or IPv6 (DLT_RAW as stored in files). */
    public static final int LINKTYPE_RAW = 101;
    /** Link type Linux cooked capture v1 (SLL). */
    public static final int LINKTYPE_LINUX_SLL = 113;
    /** Link type raw IPv4. */
    public static final int LINKTYPE_IPV4 = 228;
    /** Link type raw IPv6. */
    public static final int LINKTYPE_IPV6 = 229;
    /** Link type Linux cooked capture v2 (SLL2). */
    public static final int LINKTYPE_LINUX_SLL2 = 276;

    /** The largest record accepted, bytes; anything larger is taken as a damaged file. */
    public static final int MAX_RECORD = 16 << 20;

    private static final int PCAPNG_SHB = 0x0A0D0D0A;
    private static final int PCAPNG_BOM = 0x1A2B3C4D;
    private static final int MAX_INTERFACES = 4096;

    private final InputStream in;
    private final boolean pcapng;
    private boolean bigEndian;
    private final byte[] hdr = new byte[32];
    private byte[] data = new byte[2048];
    private long offset;

    // classic pcap
    private boolean nanos;
    private int classicLinkType;
    private int classicSnaplen;

    // pcapng interfaces of the current section
    private int ifCount;
    private int[] ifLinkType = new int[4];
    private int[] ifSnaplen = new int[4];
    private long[] ifTsUnitsPerSecond = new long[4];
    private boolean[] ifTsPowerOf2 = new boolean[4];
    private int[] ifTsPow = new int[4];
    private long[] ifTsOffsetSeconds = new long[4];

    // the current frame
    private long frameNumber;
    private long timestampNanos;
    private int linkType;
    private int capturedLength;
    private int originalLength;
    private int networkOffset;
    private int ipVersion;
    private int ipHeaderOffset;
    private int ipHeaderLength;
    private int ipProtocol;
    private int ipv4Src;
    private int ipv4Dst;
    private long ipv6SrcHi;
    private long ipv6SrcLo;
    private long ipv6DstHi;
    private long ipv6DstLo;
    private int ipId;
    private int ipFlagsFragOff;
    private int tos;
    private int ttl;
    private int flowLabel;
    private boolean udp;
    private int srcPort;
    private int dstPort;
    private int udpLength;
    private int udpChecksum;
    private int udpPayloadOffset;
    private int udpPayloadLength;
    private boolean udpTruncated;
    // TCP (iWARP streams)
    private boolean tcp;
    private int tcpSrcPort;
    private int tcpDstPort;
    private int tcpSeq;
    private int tcpAck;
    private int tcpFlags;
    private int tcpPayloadOffset;
    private int tcpPayloadLength;
    private boolean tcpTruncated;

    /**
     * Opens a capture file.
     *
     * @throws PcapFormatException if the file is not a classic pcap or pcapng capture
     * @throws IOException         if it cannot be read
     */
    public static PcapReader open(Path path) throws IOException {
        InputStream s = Files.newInputStream(path);
        try {
            return new PcapReader(s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Reads the file header from {@code in} (which this reader then owns and closes).
     *
     * @throws PcapFormatException if the stream does not start like a classic pcap or pcapng capture
     */
    public PcapReader(InputStream in) throws IOException {
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
        if (!readFully(hdr, 0, 4, true)) {
            throw new PcapFormatException("empty file, not a capture");
        }
        int magicBe = getInt(hdr, 0, true);
        if (magicBe == PCAPNG_SHB) {
            pcapng = true;
            readSectionHeader();
        } else {
            pcapng = false;
            switch (magicBe) {
                case 0xA1B2C3D4 -> { bigEndian = true; nanos = false; }
                case 0xD4C3B2A1 -> { bigEndian = false; nanos = false; }
                case 0xA1B23C4D -> { bigEndian = true; nanos = true; }
                case 0x4D3CB2A1 -> { bigEndian = false; nanos = true; }
                default -> throw new PcapFormatException(String.format(
                    "not a pcap or pcapng capture (starts with 0x%08x)", magicBe));
            }
            if (!readFully(hdr, 4, 20, true)) {
                throw new PcapFormatException("pcap file header cut short");
            }
            int major = getShort(hdr, 4);
            if (major != 2) {
                throw new PcapFormatException("unsupported pcap version " + major + "." + getShort(hdr, 6));
            }
            classicSnaplen = getInt(hdr, 16, bigEndian);
            classicLinkType = getInt(hdr, 20, bigEndian) & 0xffff; // bits 16-31: FCS length info
        }
    }

    /** "pcap" (classic, {@code nanosecond} or not) or "pcapng". */
    public String format() {
        return pcapng ? "pcapng" : nanos ? "pcap (ns)" : "pcap";
    }

    /**
     * Advances to the next frame.
     *
     * @return false at the end of the capture
     * @throws PcapFormatException if a record or block is cut short or has an impossible length
     */
    public boolean next() throws IOException {
        boolean got = pcapng ? nextPcapng() : nextClassic();
        if (got) {
            frameNumber++;
            decode();
        }
        return got;
    }

    // ---- current frame ------------------------------------------------------------------------

    /** 1-based number of the current frame (frames only; pcapng blocks without a packet do not count). */
    public long frameNumber() {
        return frameNumber;
    }

    /** Time stamp of the frame in ns since 1970-01-01 UTC. */
    public long timestampNanos() {
        return timestampNanos;
    }

    /** The link type of the frame ({@link #LINKTYPE_ETHERNET} ...). */
    public int linkType() {
        return linkType;
    }

    /** The frame's bytes, {@code [0, capturedLength())}; overwritten by the next {@link #next()}. */
    public byte[] data() {
        return data;
    }

    /** Bytes captured of this frame. */
    public int capturedLength() {
        return capturedLength;
    }

    /** Bytes the frame had on the wire (more than captured when the capture's snap length cut it). */
    public int originalLength() {
        return originalLength;
    }

    /** Offset of the IP header in {@link #data()}, or -1 if the link layer does not carry IP. */
    public int networkOffset() {
        return networkOffset;
    }

    /** 4 or 6 for a frame whose IP header was decoded, else 0. */
    public int ipVersion() {
        return ipVersion;
    }

    /** Offset of the IP header in {@link #data()} (= {@link #networkOffset()} when {@link #ipVersion()} != 0). */
    public int ipHeaderOffset() {
        return ipHeaderOffset;
    }

    /** Bytes of the IP header including IPv4 options or the IPv6 extension headers before UDP. */
    public int ipHeaderLength() {
        return ipHeaderLength;
    }

    /** IPv4 protocol or the last IPv6 next-header value (17 = UDP). */
    public int ipProtocol() {
        return ipProtocol;
    }

    /** IPv4 source address as a big-endian int. */
    public int ipv4Src() {
        return ipv4Src;
    }

    /** IPv4 destination address as a big-endian int. */
    public int ipv4Dst() {
        return ipv4Dst;
    }

    /** IPv6 source address bytes 0-7, big-endian. */
    public long ipv6SrcHi() {
        return ipv6SrcHi;
    }

    /** IPv6 source address bytes 8-15, big-endian. */
    public long ipv6SrcLo() {
        return ipv6SrcLo;
    }

    /** IPv6 destination address bytes 0-7, big-endian. */
    public long ipv6DstHi() {
        return ipv6DstHi;
    }

    /** IPv6 destination address bytes 8-15, big-endian. */
    public long ipv6DstLo() {
        return ipv6DstLo;
    }

    /** IPv4 Identification 0..0xFFFF (0 for IPv6). */
    public int ipId() {
        return ipId;
    }

    /** IPv4 flags and fragment offset, 16 bits (0x4000 = DF); 0 for IPv6. */
    public int ipFlagsFragOff() {
        return ipFlagsFragOff;
    }

    /** IPv4 TOS (DSCP + ECN) or IPv6 traffic class, 8 bits. */
    public int tos() {
        return tos;
    }

    /** IPv4 TTL or IPv6 hop limit. */
    public int ttl() {
        return ttl;
    }

    /** IPv6 flow label, 20 bits (0 for IPv4). */
    public int flowLabel() {
        return flowLabel;
    }

    /** True if the frame carries a UDP header (not in a non-first IP fragment). */
    public boolean isUdp() {
        return udp;
    }

    /** UDP source port. */
    public int srcPort() {
        return srcPort;
    }

    /** UDP destination port. */
    public int dstPort() {
        return dstPort;
    }

    /** The UDP length field (header + payload), bytes. */
    public int udpLength() {
        return udpLength;
    }

    /** The UDP checksum field (0 = none). */
    public int udpChecksum() {
        return udpChecksum;
    }

    /** Offset of the UDP payload in {@link #data()}. */
    public int udpPayloadOffset() {
        return udpPayloadOffset;
    }

    /**
     * Bytes of UDP payload present in {@link #data()}: the UDP length minus 8, or less when the frame was
     * cut by the snap length ({@link #udpTruncated()}).
     */
    public int udpPayloadLength() {
        return udpPayloadLength;
    }

    /** True if the UDP datagram is longer than what was captured, or its length field is impossible. */
    public boolean udpTruncated() {
        return udpTruncated;
    }

    // ---- TCP (for iWARP) ----------------------------------------------------------------------

    /** True if the frame carries a TCP header (not in a non-first IP fragment); then {@link #isUdp()} is false. */
    public boolean isTcp() {
        return tcp;
    }

    /** TCP source port. */
    public int tcpSrcPort() {
        return tcpSrcPort;
    }

    /** TCP destination port. */
    public int tcpDstPort() {
        return tcpDstPort;
    }

    /** TCP sequence number, 32 bits (unsigned in an int). */
    public int tcpSeq() {
        return tcpSeq;
    }

    /** TCP acknowledgment number, 32 bits. */
    public int tcpAck() {
        return tcpAck;
    }

    /** TCP flags, the low 8 bits of header bytes 12-13 (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10). */
    public int tcpFlags() {
        return tcpFlags;
    }

    /** Offset of the TCP payload in {@link #data()} (after the options). */
    public int tcpPayloadOffset() {
        return tcpPayloadOffset;
    }

    /** Bytes of TCP payload present in {@link #data()} (less than the IP length claims if cut by the snap length). */
    public int tcpPayloadLength() {
        return tcpPayloadLength;
    }

    /** True if the TCP segment is longer than what was captured, or its header length is impossible. */
    public boolean tcpTruncated() {
        return tcpTruncated;
    }

    /** The source address as text (dotted IPv4 or RFC 5952 IPv6), or "" when not IP. Allocates. */
    public String srcAddress() {
        return ipVersion == 4 ? ipv4String(ipv4Src) : ipVersion == 6 ? ipv6String(ipv6SrcHi, ipv6SrcLo) : "";
    }

    /** The destination address as text, or "" when not IP. Allocates. */
    public String dstAddress() {
        return ipVersion == 4 ? ipv4String(ipv4Dst) : ipVersion == 6 ? ipv6String(ipv6DstHi, ipv6DstLo) : "";
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    // ---- classic pcap -------------------------------------------------------------------------

    private boolean nextClassic() throws IOException {
        if (!readFully(hdr, 0, 16, true)) {
            return false;
        }
        long sec = getInt(hdr, 0, bigEndian) & 0xffffffffL;
        long frac = getInt(hdr, 4, bigEndian) & 0xffffffffL;
        int incl = getInt(hdr, 8, bigEndian);
        int orig = getInt(hdr, 12, bigEndian);
        if (incl < 0 || incl > MAX_RECORD) {
            throw new PcapFormatException("record " + (frameNumber + 1) + " at byte " + (offset - 16)
                + " claims " + Integer.toUnsignedString(incl) + " bytes");
        }
        readRecord(incl);
        timestampNanos = sec * 1_000_000_000L + (nanos ? frac : frac * 1000L);
        linkType = classicLinkType;
        capturedLength = incl;
        originalLength = orig;
        return true;
    }

    // ---- pcapng -------------------------------------------------------------------------------

    private void readSectionHeader() throws IOException {
        // block type already in hdr[0..4)
        if (!readFully(hdr, 4, 8, true)) {
            throw new PcapFormatException("pcapng section header cut short");
        }
        int bom = getInt(hdr, 8, true);
        if (bom == PCAPNG_BOM) {
            bigEndian = true;
        } else if (bom == Integer.reverseBytes(PCAPNG_BOM)) {
            bigEndian = false;
        } else {
            throw new PcapFormatException(String.format("pcapng section header with bad byte-order magic 0x%08x", bom));
        }
        int total = getInt(hdr, 4, bigEndian);
        if (total < 28 || (total & 3) != 0 || total > MAX_RECORD) {
            throw new PcapFormatException("pcapng section header with impossible length " + total);
        }
        byte[] body = readBody(total - 12);
        int major = getShort(body, 0);
        if (major != 1) {
            throw new PcapFormatException("unsupported pcapng version " + major);
        }
        checkTrailer(body, total - 16, total);
        ifCount = 0;
    }

    private boolean nextPcapng() throws IOException {
        while (true) {
            if (!readFully(hdr, 0, 8, true)) {
                return false;
            }
            int type = getInt(hdr, 0, bigEndian);
            if (type == PCAPNG_SHB) {
                readSectionHeader();
                continue;
            }
            int total = getInt(hdr, 4, bigEndian);
            if (total < 12 || (total & 3) != 0 || total > MAX_RECORD) {
                throw new PcapFormatException("pcapng block at byte " + (offset - 8) + " with impossible length "
                    + Integer.toUnsignedString(total));
            }
            int bodyLen = total - 12;
            byte[] b = readBody(total - 8);
            checkTrailer(b, bodyLen, total);
            switch (type) {
                case 1 -> interfaceDescription(b, bodyLen);
                case 6 -> {
                    if (bodyLen < 20) {
                        throw bad("enhanced packet block too short");
                    }
                    int ifId = getInt(b, 0, bigEndian);
                    long ts = ((getInt(b, 4, bigEndian) & 0xffffffffL) << 32) | (getInt(b, 8, bigEndian) & 0xffffffffL);
                    int cap = getInt(b, 12, bigEndian);
                    int orig = getInt(b, 16, bigEndian);
                    if (cap < 0 || cap > bodyLen - 20) {
                        throw bad("enhanced packet block with captured length " + Integer.toUnsignedString(cap)
                            + " beyond its block");
                    }
                    packetFromBlock(ifId, ts, b, 20, cap, orig);
                    return true;
                }
                case 3 -> {
                    if (bodyLen < 4 || ifCount == 0) {
                        throw bad("simple packet block without interface");
                    }
                    int orig = getInt(b, 0, bigEndian);
                    int cap = Math.min(bodyLen - 4, orig < 0 ? Integer.MAX_VALUE : orig);
                    if (ifSnaplen[0] > 0) {
                        cap = Math.min(cap, ifSnaplen[0]);
                    }
                    packetFromBlock(0, Long.MIN_VALUE, b, 4, cap, orig);
                    return true;
                }
                case 2 -> {
                    if (bodyLen < 20) {
                        throw bad("packet block too short");
                    }
                    int ifId = getShort(b, 0);
                    long ts = ((getInt(b, 4, bigEndian) & 0xffffffffL) << 32) | (getInt(b, 8, bigEndian) & 0xffffffffL);
                    int cap = getInt(b, 12, bigEndian);
                    int orig = getInt(b, 16, bigEndian);
                    if (cap < 0 || cap > bodyLen - 20) {
                        throw bad("packet block with captured length beyond its block");
                    }
                    packetFromBlock(ifId, ts, b, 20, cap, orig);
                    return true;
                }
                default -> {
                    // name resolution, statistics, custom, decryption secrets ...: not frames
                }
            }
        }
    }

    private void interfaceDescription(byte[] b, int bodyLen) throws PcapFormatException {
        if (bodyLen < 8) {
            throw bad("interface description block too short");
        }
        if (ifCount == MAX_INTERFACES) {
            throw bad("more than " + MAX_INTERFACES + " interfaces");
        }
        if (ifCount == ifLinkType.length) {
            int n = ifCount * 2;
            ifLinkType = java.util.Arrays.copyOf(ifLinkType, n);
            ifSnaplen = java.util.Arrays.copyOf(ifSnaplen, n);
            ifTsUnitsPerSecond = java.util.Arrays.copyOf(ifTsUnitsPerSecond, n);
            ifTsPowerOf2 = java.util.Arrays.copyOf(ifTsPowerOf2, n);
            ifTsPow = java.util.Arrays.copyOf(ifTsPow, n);
            ifTsOffsetSeconds = java.util.Arrays.copyOf(ifTsOffsetSeconds, n);
        }
        int i = ifCount++;
        ifLinkType[i] = getShort(b, 0);
        ifSnaplen[i] = getInt(b, 4, bigEndian);
        ifTsPowerOf2[i] = false;
        ifTsPow[i] = 6;
        ifTsUnitsPerSecond[i] = 1_000_000L;
        ifTsOffsetSeconds[i] = 0;
        int p = 8;
        while (p + 4 <= bodyLen) {
            int code = getShort(b, p);
            int len = getShort(b, p + 2);
            int v = p + 4;
            if (code == 0 || v + len > bodyLen) {
                break; // opt_endofopt, or options that overrun the block: ignore the rest
            }
            if (code == 9 && len >= 1) {            // if_tsresol
                int r = b[v] & 0xff;
                ifTsPowerOf2[i] = (r & 0x80) != 0;
                ifTsPow[i] = r & 0x7f;
                if (!ifTsPowerOf2[i]) {
                    long u = 1;
                    for (int k = 0; k < ifTsPow[i] && u <= Long.MAX_VALUE / 10; k++) {
                        u *= 10;
                    }
                    ifTsUnitsPerSecond[i] = u;
                }
            } else if (code == 14 && len >= 8) {    // if_tsoffset, seconds
                ifTsOffsetSeconds[i] = getLong(b, v);
            }
            p = v + ((len + 3) & ~3);
        }
    }

    private void packetFromBlock(int ifId, long ts, byte[] block, int at, int cap, int orig) throws PcapFormatException {
        if (ifId < 0 || ifId >= ifCount) {
            throw bad("packet for undefined interface " + ifId);
        }
        ensureData(cap);
        System.arraycopy(block, at, data, 0, cap);
        linkType = ifLinkType[ifId];
        capturedLength = cap;
        originalLength = orig;
        if (ts == Long.MIN_VALUE) {
            timestampNanos = 0;
        } else {
            long nanosTs;
            if (ifTsPowerOf2[ifId]) {
                int pow = ifTsPow[ifId];
                nanosTs = pow >= 63 ? 0 : (long) ((double) ts / (double) (1L << pow) * 1e9);
            } else {
                long units = ifTsUnitsPerSecond[ifId];
                if (units == 1_000_000_000L) {
                    nanosTs = ts;
                } else if (units < 1_000_000_000L) {
                    nanosTs = ts * (1_000_000_000L / units);
                } else {
                    nanosTs = ts / (units / 1_000_000_000L);
                }
            }
            timestampNanos = nanosTs + ifTsOffsetSeconds[ifId] * 1_000_000_000L;
        }
    }

    private byte[] blockBuf = new byte[2048];

    private byte[] readBody(int n) throws IOException {
        if (blockBuf.length < n) {
            blockBuf = new byte[Math.max(n, blockBuf.length * 2)];
        }
        if (!readFully(blockBuf, 0, n, false)) {
            throw new PcapFormatException("capture cut short");
        }
        return blockBuf;
    }

    private void checkTrailer(byte[] b, int at, int total) throws PcapFormatException {
        if (getInt(b, at, bigEndian) != total) {
            throw bad("pcapng block at byte " + (offset - total) + " has mismatched trailing length");
        }
    }

    private PcapFormatException bad(String what) {
        return new PcapFormatException(what + " (frame " + (frameNumber + 1) + ", byte " + offset + ")");
    }

    // ---- I/O helpers --------------------------------------------------------------------------

    private void readRecord(int n) throws IOException {
        ensureData(n);
        if (!readFully(data, 0, n, false)) {
            throw new PcapFormatException("capture cut short");
        }
    }

    private void ensureData(int n) {
        if (data.length < n) {
            data = new byte[Math.max(n, data.length * 2)];
        }
    }

    /**
     * Reads exactly n bytes. Returns false on end of stream before the first byte when {@code eofOk};
     * throws PcapFormatException when the stream ends after some bytes (or at once, without eofOk).
     */
    private boolean readFully(byte[] b, int off, int n, boolean eofOk) throws IOException {
        int done = 0;
        while (done < n) {
            int r = in.read(b, off + done, n - done);
            if (r < 0) {
                if (done == 0 && eofOk) {
                    return false;
                }
                throw new PcapFormatException("capture cut short: frame " + (frameNumber + 1) + " needs "
                    + (n - done) + " more bytes at byte " + (offset + done));
            }
            done += r;
        }
        offset += n;
        return true;
    }

    private int getShort(byte[] b, int at) {
        int v = ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
        return bigEndian ? v : Integer.reverseBytes(v << 16) & 0xffff;
    }

    private static int getInt(byte[] b, int at, boolean be) {
        int v = ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
        return be ? v : Integer.reverseBytes(v);
    }

    private long getLong(byte[] b, int at) {
        long hi = getInt(b, at, bigEndian) & 0xffffffffL;
        long lo = getInt(b, at + 4, bigEndian) & 0xffffffffL;
        return bigEndian ? (hi << 32) | lo : (lo << 32) | hi;
    }

    private static int be16(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }

    private static int be32(byte[] b, int at) {
        return getInt(b, at, true);
    }

    private static long be64(byte[] b, int at) {
        return ((long) be32(b, at) << 32) | (be32(b, at + 4) & 0xffffffffL);
    }

    // ---- frame decoding -----------------------------------------------------------------------

    private void decode() {
        networkOffset = -1;
        ipVersion = 0;
        ipHeaderOffset = -1;
        ipHeaderLength = 0;
        ipProtocol = -1;
        ipv4Src = ipv4Dst = 0;
        ipv6SrcHi = ipv6SrcLo = ipv6DstHi = ipv6DstLo = 0;
        ipId = ipFlagsFragOff = tos = ttl = flowLabel = 0;
        udp = false;
        srcPort = dstPort = udpLength = udpChecksum = 0;
        udpPayloadOffset = udpPayloadLength = 0;
        udpTruncated = false;
        tcp = false;
        tcpSrcPort = tcpDstPort = tcpSeq = tcpAck = tcpFlags = tcpPayloadOffset = tcpPayloadLength = 0;
        tcpTruncated = false;

        byte[] d = data;
        int n = capturedLength;
        int etherType;
        int p;
        switch (linkType) {
            case LINKTYPE_ETHERNET -> {
                if (n < 14) {
                    return;
                }
                p = 12;
                etherType = be16(d, p);
                p += 2;
                while ((etherType == 0x8100 || etherType == 0x88a8 || etherType == 0x9100) && p + 4 <= n) {
                    etherType = be16(d, p + 2);
                    p += 4;
                }
            }
            case LINKTYPE_LINUX_SLL -> {
                if (n < 16) {
                    return;
                }
                etherType = be16(d, 14);
                p = 16;
            }
            case LINKTYPE_LINUX_SLL2 -> {
                if (n < 20) {
                    return;
                }
                etherType = be16(d, 0);
                p = 20;
            }
            case LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6 -> {
                if (n < 1) {
                    return;
                }
                int v = (d[0] & 0xff) >>> 4;
                etherType = v == 4 ? 0x0800 : v == 6 ? 0x86dd : -1;
                p = 0;
            }
            default -> {
                return;
            }
        }
        if (etherType == 0x0800) {
            networkOffset = p;
            decodeIpv4(d, p, n);
        } else if (etherType == 0x86dd) {
            networkOffset = p;
            decodeIpv6(d, p, n);
        }
    }

    private void decodeIpv4(byte[] d, int p, int n) {
        if (p + 20 > n || (d[p] & 0xf0) != 0x40) {
            return;
        }
        int ihl = (d[p] & 0x0f) * 4;
        if (ihl < 20 || p + ihl > n) {
            return;
        }
        ipVersion = 4;
        ipHeaderOffset = p;
        ipHeaderLength = ihl;
        tos = d[p + 1] & 0xff;
        int totalLength = be16(d, p + 2);
        ipId = be16(d, p + 4);
        ipFlagsFragOff = be16(d, p + 6);
        ttl = d[p + 8] & 0xff;
        ipProtocol = d[p + 9] & 0xff;
        ipv4Src = be32(d, p + 12);
        ipv4Dst = be32(d, p + 16);
        int end = totalLength < ihl ? p + ihl : p + totalLength; // bytes the IP packet claims
        if (ipProtocol == 6 && (ipFlagsFragOff & 0x1fff) == 0) {
            decodeTcp(d, p + ihl, n, end);
            return;
        }
        if (ipProtocol != 17 || (ipFlagsFragOff & 0x1fff) != 0) {
            return; // not UDP, or a fragment without the UDP header
        }
        decodeUdp(d, p + ihl, n, end);
    }

    private void decodeIpv6(byte[] d, int p, int n) {
        if (p + 40 > n || (d[p] & 0xf0) != 0x60) {
            return;
        }
        ipVersion = 6;
        ipHeaderOffset = p;
        int first = be32(d, p);
        tos = (first >>> 20) & 0xff;
        flowLabel = first & 0xfffff;
        int payloadLength = be16(d, p + 4);
        int next = d[p + 6] & 0xff;
        ttl = d[p + 7] & 0xff;
        ipv6SrcHi = be64(d, p + 8);
        ipv6SrcLo = be64(d, p + 16);
        ipv6DstHi = be64(d, p + 24);
        ipv6DstLo = be64(d, p + 32);
        int q = p + 40;
        int end = p + 40 + payloadLength;
        // hop-by-hop (0), routing (43), fragment (44), destination options (60)
        for (int guard = 0; guard < 8 && (next == 0 || next == 43 || next == 44 || next == 60); guard++) {
            if (q + 8 > n) {
                ipProtocol = next;
                ipHeaderLength = q - p;
                return;
            }
            int nh = d[q] & 0xff;
            if (next == 44) {
                int fragOff = be16(d, q + 2) & 0xfff8;
                if (fragOff != 0) {
                    ipProtocol = nh;
                    ipHeaderLength = q + 8 - p;
                    return; // not the first fragment: no UDP header here
                }
                q += 8;
            } else {
                q += ((d[q + 1] & 0xff) + 1) * 8;
            }
            next = nh;
        }
        ipProtocol = next;
        ipHeaderLength = q - p;
        if (next == 6 && q <= n) {
            decodeTcp(d, q, n, end);
            return;
        }
        if (next != 17 || q > n) {
            return;
        }
        decodeUdp(d, q, n, end);
    }

    private void decodeUdp(byte[] d, int u, int n, int ipEnd) {
        if (u + 8 > n) {
            return;
        }
        udp = true;
        srcPort = be16(d, u);
        dstPort = be16(d, u + 2);
        udpLength = be16(d, u + 4);
        udpChecksum = be16(d, u + 6);
        udpPayloadOffset = u + 8;
        int claimed = udpLength - 8;
        if (claimed < 0 || u + udpLength > ipEnd) {
            // an impossible UDP length (below 8, or beyond the IP packet); IPv6 jumbograms are not expected
            udpTruncated = true;
            claimed = Math.max(0, Math.min(ipEnd, n) - udpPayloadOffset);
        }
        int avail = n - udpPayloadOffset;
        if (claimed > avail) {
            udpTruncated = true;
            claimed = avail;
        }
        udpPayloadLength = claimed;
    }

    private void decodeTcp(byte[] d, int t, int n, int ipEnd) {
        if (t + 20 > n) {
            return;
        }
        tcp = true;
        tcpSrcPort = be16(d, t);
        tcpDstPort = be16(d, t + 2);
        tcpSeq = be32(d, t + 4);
        tcpAck = be32(d, t + 8);
        int dataOffset = ((d[t + 12] & 0xff) >>> 4) * 4;
        tcpFlags = d[t + 13] & 0xff;
        if (dataOffset < 20 || t + dataOffset > ipEnd) {
            tcpTruncated = true;
            tcpPayloadOffset = Math.min(t + 20, n);
            return;
        }
        tcpPayloadOffset = t + dataOffset;
        int claimed = ipEnd - tcpPayloadOffset;
        int avail = n - tcpPayloadOffset;
        if (avail < 0) {
            tcpTruncated = true;
            tcpPayloadOffset = n;
            return;
        }
        if (claimed > avail) {
            tcpTruncated = true;
            claimed = avail;
        }
        tcpPayloadLength = claimed;
    }

    // ---- formatting ---------------------------------------------------------------------------

    /** Dotted-quad text of a big-endian IPv4 address. */
    public static String ipv4String(int a) {
        return ((a >>> 24) & 0xff) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
    }

    /** RFC 5952 text of an IPv6 address given as two big-endian longs (IPv4-mapped as ::ffff:a.b.c.d). */
    public static String ipv6String(long hi, long lo) {
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) (hi >>> (48 - 16 * i)) & 0xffff;
            g[i + 4] = (int) (lo >>> (48 - 16 * i)) & 0xffff;
        }
        if (hi == 0 && (lo >>> 32) == 0xffffL) {
            return "::ffff:" + ipv4String((int) lo);
        }
        int bestAt = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestAt = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(40);
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }
}
