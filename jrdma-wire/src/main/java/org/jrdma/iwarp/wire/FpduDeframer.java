package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Reads MPA frames and FPDUs (RFC 5044 §4, §7) out of one direction of a TCP byte stream that arrives in
 * arbitrary pieces: a read may end inside an FPDU's length field, inside its ULPDU or CRC, or hold several
 * FPDUs. Complete frames are checked and handed to an {@link FpduHandler}; malformed ones are dropped and
 * counted by {@link FpduDropReason}.
 *
 * <p>Use: {@code n = channel.read(d.receiveBuffer()); d.process(n, handler);} (zero-copy into the
 * deframer's buffer), or {@link #feed(ByteBuffer, FpduHandler)} with bytes from elsewhere. On a new
 * connection call {@link #expectMpaRequest} (responder) or {@link #expectMpaReply} (initiator) first: the
 * frame is validated ({@link MpaFrame#validate}, against {@link #maxPrivateData()}), delivered to
 * {@link FpduHandler#onMpaFrame}, and the bytes after it are read as FPDUs (siw's P2P RTR Write can arrive
 * in the same segment as the reply). Without it the stream is read as FPDUs from the first byte.
 *
 * <p>Per FPDU: ULPDU_Length above {@link #maxUlpduLength()} ({@link FpduDropReason#ULPDU_TOO_LONG}) fails the
 * stream: the FPDU boundaries are lost (MPA without markers has no way to find the next one), the deframer
 * stops and counts the rest as {@link FpduDropReason#AFTER_STOP} bytes. So does an MPA frame that fails
 * validation. Otherwise a complete FPDU with a wrong CRC (when {@link #crcEnabled()}) is dropped as
 * {@link FpduDropReason#BAD_CRC}, one failing {@link FpduValidator} with its reason, and the stream goes on
 * with the next FPDU; RFC 5044 §4.4 and siw close the connection after a CRC error, which is the handler's
 * call ({@link #stop()}). With CRC off the CRC field is not checked (siw does not) but a non-zero one is
 * counted ({@link #nonZeroCrcFields()}). Markers are not supported: the handler refuses an MPA frame with M.
 *
 * <p>Memory: one direct buffer of {@link #capacity()} bytes, allocated by the constructor; nothing is
 * allocated per call. A partial FPDU is moved to the buffer's start when it would not fit at its end.
 * Threads: one connection's receive side, used by one thread at a time (the provider's I/O thread);
 * not thread-safe.
 */
public final class FpduDeframer {
    private static final int MODE_FPDU = 0;
    private static final int MODE_REQUEST = 1;
    private static final int MODE_REPLY = 2;

    private final ByteBuffer buf;
    private final ByteBuffer recvView;
    private final MemorySegment seg;
    private final MpaFrame frame = new MpaFrame();
    private final FpduCrc crc = new FpduCrc();
    private final long[] drops = new long[FpduDropReason.COUNT];
    private int start;
    private int end;
    private int mode = MODE_FPDU;
    private boolean crcEnabled;
    private boolean stopped;
    private boolean failed;
    private int maxUlpduLength = Mpa.MAX_ULPDU_LENGTH;
    private int maxPrivateData = Mpa.MAX_PRIVATE_DATA;
    private long fpdus;
    private long mpaFrames;
    private long bytes;
    private long nonZeroCrc;

    /** A deframer with a buffer of twice the longest FPDU (131,088 bytes). */
    public FpduDeframer() {
        this(2 * Mpa.MAX_FPDU_LENGTH);
    }

    /**
     * A deframer with a buffer of {@code capacity} bytes of direct memory.
     *
     * @param capacity at least {@link Mpa#MAX_FPDU_LENGTH} (65,544); more lets one read take more bytes
     * @throws IllegalArgumentException if smaller
     */
    public FpduDeframer(int capacity) {
        if (capacity < Mpa.MAX_FPDU_LENGTH) {
            throw new IllegalArgumentException("capacity must be >= " + Mpa.MAX_FPDU_LENGTH + ": " + capacity);
        }
        buf = ByteBuffer.allocateDirect(capacity);
        recvView = buf.duplicate();
        seg = MemorySegment.ofBuffer(buf);
    }

    // ---- configuration -------------------------------------------------------------------------

    /** Expect an MPA Request ("MPA ID Req Frame") before the FPDUs: the responder's side. @return this */
    public FpduDeframer expectMpaRequest() {
        mode = MODE_REQUEST;
        return this;
    }

    /** Expect an MPA Reply ("MPA ID Rep Frame", also a reject) before the FPDUs: the initiator's side. @return this */
    public FpduDeframer expectMpaReply() {
        mode = MODE_REPLY;
        return this;
    }

    /** True while an MPA Request or Reply is still expected. */
    public boolean expectingMpaFrame() {
        return mode != MODE_FPDU;
    }

    /** True if FPDU CRCs are checked. Default false (siw's default). */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** Sets {@link #crcEnabled()}; takes effect with the next FPDU. @return this */
    public FpduDeframer crcEnabled(boolean on) {
        this.crcEnabled = on;
        return this;
    }

    /** The largest ULPDU_Length accepted, default 65,535. */
    public int maxUlpduLength() {
        return maxUlpduLength;
    }

    /**
     * Sets {@link #maxUlpduLength()}.
     *
     * @param v 14..65535
     * @return this
     * @throws IllegalArgumentException if outside that range
     */
    public FpduDeframer maxUlpduLength(int v) {
        if (v < DdpHeader.TAGGED_LENGTH || v > Mpa.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("maxUlpduLength must be 14..65535: " + v);
        }
        maxUlpduLength = v;
        return this;
    }

    /** The private data limit for the MPA frame, default {@link Mpa#MAX_PRIVATE_DATA} (512). */
    public int maxPrivateData() {
        return maxPrivateData;
    }

    /**
     * Sets {@link #maxPrivateData()} ({@link Mpa#SIW_MAX_PRIVATE_DATA} to behave as siw).
     *
     * @param v 0..512
     * @return this
     * @throws IllegalArgumentException if outside that range
     */
    public FpduDeframer maxPrivateData(int v) {
        if (v < 0 || v > Mpa.MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("maxPrivateData must be 0..512: " + v);
        }
        maxPrivateData = v;
        return this;
    }

    /** Stops delivery: the current {@link #process} returns after the frame being delivered; later bytes are discarded. */
    public void stop() {
        stopped = true;
    }

    /** True after {@link #stop()} or a failure of the stream. */
    public boolean stopped() {
        return stopped || failed;
    }

    /** True after a frame that breaks the stream ({@link FpduDropReason#ULPDU_TOO_LONG}, a bad MPA frame). */
    public boolean failed() {
        return failed;
    }

    // ---- input ---------------------------------------------------------------------------------

    /** Bytes of direct memory of the buffer. */
    public int capacity() {
        return buf.capacity();
    }

    /** Bytes received and not yet consumed (the start of a partial frame). */
    public int buffered() {
        return end - start;
    }

    /**
     * The buffer to read the next bytes into: position at the end of the buffered bytes, limit at the
     * capacity; a partial frame is first moved to the start when fewer than {@link Mpa#MAX_FPDU_LENGTH}
     * bytes are free after it. After reading n bytes into it, call {@link #process(int, FpduHandler)}. The
     * same object is returned each time; do not keep its position or limit across calls.
     */
    public ByteBuffer receiveBuffer() {
        if (start == end) {
            start = end = 0;
        } else if (start > 0 && capacity() - end < Mpa.MAX_FPDU_LENGTH) {
            compact();
        }
        recvView.limit(recvView.capacity()).position(end);
        return recvView;
    }

    /**
     * Takes {@code n} bytes just read into {@link #receiveBuffer()} and delivers every complete frame.
     *
     * @param n bytes read (a negative value, such as read()'s end of stream, is taken as 0)
     * @return the number of FPDUs and MPA frames delivered to the handler
     * @throws IllegalArgumentException if {@code n} is more than the free space of the buffer
     */
    public int process(int n, FpduHandler h) {
        if (n > 0) {
            if (n > capacity() - end) {
                throw new IllegalArgumentException(n + " bytes received but only " + (capacity() - end) + " free");
            }
            end += n;
            bytes += n;
        }
        return deliver(h);
    }

    /**
     * Copies {@code src}'s remaining bytes in (advancing its position) and delivers every complete frame,
     * repeating while bytes remain and the stream is not stopped.
     *
     * @return the number of FPDUs and MPA frames delivered
     */
    public int feed(ByteBuffer src, FpduHandler h) {
        int delivered = 0;
        do {
            ByteBuffer into = receiveBuffer();
            int n = Math.min(src.remaining(), into.remaining());
            if (n == 0) {
                break;
            }
            int lim = src.limit();
            src.limit(src.position() + n);
            into.put(src);
            src.limit(lim);
            delivered += process(n, h);
        } while (src.hasRemaining() && !stopped());
        return delivered;
    }

    // ---- counters ------------------------------------------------------------------------------

    /** FPDUs delivered to {@link FpduHandler#onFpdu}. */
    public long fpdus() {
        return fpdus;
    }

    /** MPA Request/Reply frames delivered. */
    public long mpaFrames() {
        return mpaFrames;
    }

    /** Bytes received (all input, including discarded bytes). */
    public long bytes() {
        return bytes;
    }

    /** Frames dropped for {@code reason}; for {@link FpduDropReason#AFTER_STOP}, bytes. */
    public long drops(int reason) {
        return reason >= 0 && reason < FpduDropReason.COUNT ? drops[reason] : 0;
    }

    /** Frames dropped for any reason (not counting {@link FpduDropReason#AFTER_STOP} bytes). */
    public long totalDrops() {
        long t = 0;
        for (int r = 1; r < FpduDropReason.COUNT; r++) {
            if (r != FpduDropReason.AFTER_STOP) {
                t += drops[r];
            }
        }
        return t;
    }

    /** FPDUs received with CRC off whose CRC field was not zero (delivered anyway, as siw does). */
    public long nonZeroCrcFields() {
        return nonZeroCrc;
    }

    // ---- parsing -------------------------------------------------------------------------------

    private int deliver(FpduHandler h) {
        int delivered = 0;
        while (true) {
            if (stopped || failed) {
                int rest = end - start;
                if (rest > 0) {
                    drops[FpduDropReason.AFTER_STOP] += rest;
                }
                start = end = 0;
                return delivered;
            }
            int avail = end - start;
            if (mode != MODE_FPDU) {
                if (avail < MpaFrame.HEADER_LENGTH) {
                    return delivered;
                }
                frame.wrap(seg, start);
                int r = frame.validate(mode == MODE_REQUEST, maxPrivateData);
                if (r != FpduDropReason.OK) {
                    drops[r]++;
                    failed = true;
                    h.onDrop(r, seg, start, MpaFrame.HEADER_LENGTH);
                    continue;
                }
                int len = frame.length();
                if (avail < len) {
                    return delivered;
                }
                mode = MODE_FPDU;
                start += len;
                mpaFrames++;
                delivered++;
                h.onMpaFrame(frame);
                continue;
            }
            if (avail < Mpa.HEADER_LENGTH) {
                return delivered;
            }
            int ulpdu = (buf.get(start) & 0xff) << 8 | (buf.get(start + 1) & 0xff);
            if (ulpdu > maxUlpduLength) {
                drops[FpduDropReason.ULPDU_TOO_LONG]++;
                failed = true;
                h.onDrop(FpduDropReason.ULPDU_TOO_LONG, seg, start + Mpa.HEADER_LENGTH, Math.min(ulpdu, avail - Mpa.HEADER_LENGTH));
                continue;
            }
            int total = Mpa.fpduLength(ulpdu);
            if (avail < total) {
                return delivered;
            }
            int at = start;
            start += total;
            int crcAt = at + total - Mpa.CRC_LENGTH;
            long ulpduAt = at + Mpa.HEADER_LENGTH;
            if (crcEnabled) {
                if (crc.compute(buf, at, total - Mpa.CRC_LENGTH) != FpduCrc.read(buf, crcAt)) {
                    drops[FpduDropReason.BAD_CRC]++;
                    h.onDrop(FpduDropReason.BAD_CRC, seg, ulpduAt, ulpdu);
                    continue;
                }
            } else if (buf.getInt(crcAt) != 0) {
                nonZeroCrc++;
            }
            int r = FpduValidator.check(seg, ulpduAt, ulpdu);
            if (r != FpduDropReason.OK) {
                drops[r]++;
                h.onDrop(r, seg, ulpduAt, ulpdu);
                continue;
            }
            fpdus++;
            delivered++;
            h.onFpdu(seg, ulpduAt, ulpdu);
        }
    }

    private void compact() {
        int n = end - start;
        MemorySegment.copy(seg, start, seg, 0, n); // overlap-safe
        start = 0;
        end = n;
    }
}
