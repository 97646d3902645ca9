package org.jrdma.iwarp.pcap;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import org.jrdma.rocev2.pcap.PcapReader;

/**
 * Rebuilds the byte streams of the TCP connections in a capture, one per direction, by sequence number:
 * retransmitted bytes are passed on once, segments that arrive ahead of a hole wait until it is filled, and
 * each newly contiguous run of bytes goes to a {@link Listener} with the number of the frame that completed
 * it. A stream starts at the SYN's sequence number + 1, or at the first segment seen when the capture began
 * after the handshake. A hole that is never filled (a segment the capture lost) stops the stream there:
 * later bytes are counted in {@link Flow#bytesAfterGap()}, not passed on.
 *
 * <p>For offline tools (pcap-check, tests): allocates per segment. Not thread-safe.
 */
public final class TcpReassembler {
    /** Receives the bytes of each direction in order. */
    public interface Listener {
        /**
         * The next {@code len} bytes of {@code flow}'s stream, {@code data[off, off+len)}, valid during the
         * call; {@code frame} is the capture frame that made them contiguous.
         */
        void onData(Flow flow, byte[] data, int off, int len, long frame);
    }

    /** One direction of a TCP connection. */
    public static final class Flow {
        private final String srcAddress;
        private final int srcPort;
        private final String dstAddress;
        private final int dstPort;
        private final int ipVersion;
        private boolean started;
        private long next;             // next expected sequence number (unwrapped)
        private long lastSeq32 = -1;   // for unwrapping
        private final TreeMap<Long, byte[]> ahead = new TreeMap<>();
        private long bytes;
        private long retransmitted;
        private long bytesAfterGap;
        /** For the listener's state (e.g. a deframer). */
        public Object attachment;

        Flow(String srcAddress, int srcPort, String dstAddress, int dstPort, int ipVersion) {
            this.srcAddress = srcAddress;
            this.srcPort = srcPort;
            this.dstAddress = dstAddress;
            this.dstPort = dstPort;
            this.ipVersion = ipVersion;
        }

        /** Source address as text. */
        public String srcAddress() {
            return srcAddress;
        }

        /** Source port. */
        public int srcPort() {
            return srcPort;
        }

        /** Destination address as text. */
        public String dstAddress() {
            return dstAddress;
        }

        /** Destination port. */
        public int dstPort() {
            return dstPort;
        }

        /** 4 or 6. */
        public int ipVersion() {
            return ipVersion;
        }

        /** Stream bytes passed on so far. */
        public long bytes() {
            return bytes;
        }

        /** Bytes received again (retransmissions, overlaps) and not passed on twice. */
        public long retransmittedBytes() {
            return retransmitted;
        }

        /** Bytes still waiting behind a hole (at the end of the capture: bytes after a lost segment). */
        public long bytesAfterGap() {
            long n = 0;
            for (byte[] b : ahead.values()) {
                n += b.length;
            }
            return n + bytesAfterGap;
        }

        /** "10.77.1.12:49655 -> 10.77.1.11:7174" (IPv6 addresses in brackets). */
        public String name() {
            return endpoint(srcAddress, srcPort) + " -> " + endpoint(dstAddress, dstPort);
        }

        private String endpoint(String a, int p) {
            return ipVersion == 6 ? "[" + a + "]:" + p : a + ":" + p;
        }

        @Override
        public String toString() {
            return name();
        }
    }

    private final Map<String, Flow> flows = new HashMap<>();
    private final Listener listener;

    /** A reassembler that passes stream bytes to {@code listener}. */
    public TcpReassembler(Listener listener) {
        this.listener = listener;
    }

    /** The flow of the opposite direction, or null if none was seen. */
    public Flow reverse(Flow f) {
        return flows.get(key(f.dstAddress, f.dstPort, f.srcAddress, f.srcPort));
    }

    /** All flows seen, in no particular order. */
    public Iterable<Flow> flows() {
        return flows.values();
    }

    /**
     * Takes the reader's current frame if it is a TCP segment (else does nothing).
     *
     * @return the segment's flow, or null if the frame is not TCP
     */
    public Flow accept(PcapReader r) {
        if (!r.isTcp()) {
            return null;
        }
        String src = r.srcAddress();
        String dst = r.dstAddress();
        String k = key(src, r.tcpSrcPort(), dst, r.tcpDstPort());
        Flow f = flows.get(k);
        if (f == null) {
            f = new Flow(src, r.tcpSrcPort(), dst, r.tcpDstPort(), r.ipVersion());
            flows.put(k, f);
        }
        long seq = unwrap(f, r.tcpSeq() & 0xffffffffL);
        int flags = r.tcpFlags();
        int len = r.tcpPayloadLength();
        if ((flags & 0x02) != 0) {       // SYN: data starts one after it
            if (!f.started) {
                f.started = true;
                f.next = seq + 1;
            }
            seq++;
        }
        if (len == 0) {
            return f;
        }
        if (!f.started) {
            f.started = true;
            f.next = seq;
        }
        byte[] d = r.data();
        int off = r.tcpPayloadOffset();
        long endSeq = seq + len;
        if (endSeq <= f.next) {
            f.retransmitted += len;
            return f;
        }
        if (seq < f.next) {
            int skip = (int) (f.next - seq);
            f.retransmitted += skip;
            off += skip;
            len -= skip;
            seq = f.next;
        }
        if (seq > f.next) {
            byte[] copy = new byte[len];
            System.arraycopy(d, off, copy, 0, len);
            byte[] old = f.ahead.get(seq);
            if (old == null || old.length < copy.length) {
                f.ahead.put(seq, copy);
            }
            return f;
        }
        deliver(f, d, off, len, r.frameNumber());
        // segments that were waiting for this one
        while (!f.ahead.isEmpty()) {
            Map.Entry<Long, byte[]> e = f.ahead.firstEntry();
            long s = e.getKey();
            byte[] b = e.getValue();
            if (s > f.next) {
                break;
            }
            f.ahead.pollFirstEntry();
            long eEnd = s + b.length;
            if (eEnd <= f.next) {
                f.retransmitted += b.length;
                continue;
            }
            int skip = (int) (f.next - s);
            f.retransmitted += skip;
            deliver(f, b, skip, b.length - skip, r.frameNumber());
        }
        return f;
    }

    private void deliver(Flow f, byte[] d, int off, int len, long frame) {
        f.next += len;
        f.bytes += len;
        listener.onData(f, d, off, len, frame);
    }

    private static long unwrap(Flow f, long seq32) {
        if (f.lastSeq32 < 0) {
            f.lastSeq32 = seq32;
            return seq32;
        }
        long base = f.lastSeq32;
        long delta = (seq32 - (base & 0xffffffffL)) & 0xffffffffL;
        long v = delta < 0x80000000L ? base + delta : base + delta - 0x100000000L;
        if (v > f.lastSeq32) {
            f.lastSeq32 = v;
        }
        return v;
    }

    private static String key(String src, int sport, String dst, int dport) {
        return src + "|" + sport + "|" + dst + "|" + dport;
    }
}
