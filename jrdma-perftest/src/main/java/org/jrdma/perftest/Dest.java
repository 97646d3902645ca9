package org.jrdma.perftest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jrdma.verbs.Gid;

/**
 * What one side tells the other about one QP, perftest's {@code struct pingpong_dest}, and its TCP
 * form: the NUL-terminated ASCII string {@code KEY_PRINT_FMT_GID}
 * {@code "%04x:%04x:%06x:%06x:%08x:%016llx:" + 16 x "%02x:" + "%08x:"} of exactly
 * {@value #KEY_MSG_SIZE_GID} bytes ({@code perftest_communication.c: ethernet_write_keys}), as seen
 * in the port-18515 stream of the reference captures. With {@code -R}/{@code -z} (rdma_cm) the same
 * data travels as the binary struct itself in one SEND ({@link #encodeStruct}, {@code rdma_write_keys}).
 *
 * @param lid      LID, 16 bits (0 on RoCE)
 * @param outReads outstanding RDMA READ / atomic operations this side allows (1 for SEND/WRITE tests)
 * @param qpn      QPN, 24 bits
 * @param psn      the first PSN this side sends, 24 bits
 * @param rkey     rkey of the buffer, 32 bits
 * @param vaddr    virtual address of the buffer the peer targets
 * @param gid      the GID of this side's port ({@code -x} index)
 * @param srqn     SRQ number (0: perftest's jrdma tools use no SRQ)
 */
public record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
    /** Bytes of the hand-shake string with a GID, including the terminating NUL ({@code KEY_MSG_SIZE_GID}). */
    public static final int KEY_MSG_SIZE_GID = 108;

    /**
     * Bytes of {@code struct pingpong_dest} on x86-64 (perftest 4.5's {@code perftest_resources.h}):
     * lid, out_reads, qpn, psn, rkey (int32 each), 4 bytes of padding, vaddr (int64), the 16-byte GID,
     * srqn, gid_index (int32 each); the size of the receive perftest posts for the rdma_cm exchange.
     */
    public static final int STRUCT_SIZE = 56;

    /** Every field zero: what perftest's rdma_cm mode sends in the hand-shakes around the QPs' connection. */
    public static Dest zero() {
        return new Dest(0, 0, 0, 0, 0, 0, Gid.of(new byte[16]), 0);
    }

    /**
     * The hand-shake of perftest's rdma_cm mode ({@code rdma_write_keys} with {@code HAVE_ENDIAN}):
     * the {@value #STRUCT_SIZE}-byte struct with every field big-endian, as seen in the SENDs of the
     * reference capture {@code rxe-cm-write-bw.pcap}.
     *
     * @param gidIndex the struct's {@code gid_index} (the sender's GID index; 0 in the zeroed hand-shakes)
     */
    public byte[] encodeStruct(int gidIndex) {
        ByteBuffer b = ByteBuffer.allocate(STRUCT_SIZE); // big-endian
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr);
        for (int i = 0; i < 16; i++) {
            b.put((byte) gid.byteAt(i));
        }
        b.putInt(srqn).putInt(gidIndex);
        return b.array();
    }

    /**
     * Reads the struct of {@link #encodeStruct} ({@code rdma_read_keys}: lid, out_reads, qpn, psn, rkey,
     * vaddr and GID; srqn too, which perftest leaves unread).
     *
     * @throws PerftestException when fewer than {@value #STRUCT_SIZE} bytes came
     */
    public static Dest decodeStruct(byte[] msg) {
        if (msg.length < STRUCT_SIZE) {
            throw new PerftestException("peer sent a " + msg.length + "-byte QP hand-shake, expected perftest's "
                    + STRUCT_SIZE + "-byte struct pingpong_dest");
        }
        ByteBuffer b = ByteBuffer.wrap(msg);
        int lid = b.getInt(0), outReads = b.getInt(4), qpn = b.getInt(8), psn = b.getInt(12), rkey = b.getInt(16);
        long vaddr = b.getLong(24);
        byte[] gid = new byte[16];
        b.get(32, gid);
        return new Dest(lid, outReads, qpn, psn, rkey, vaddr, Gid.of(gid), b.getInt(48));
    }

    /** The {@value #KEY_MSG_SIZE_GID}-byte hand-shake message. */
    public byte[] encode() {
        StringBuilder sb = new StringBuilder(KEY_MSG_SIZE_GID);
        sb.append(CFormat.hex(lid & 0xffff, 4)).append(':')
                .append(CFormat.hex(outReads & 0xffff, 4)).append(':')
                .append(CFormat.hex(qpn & 0xffffff, 6)).append(':')
                .append(CFormat.hex(psn & 0xffffff, 6)).append(':')
                .append(CFormat.hex(rkey & 0xffffffffL, 8)).append(':')
                .append(CFormat.hex(vaddr, 16)).append(':');
        for (int i = 0; i < 16; i++) {
            sb.append(CFormat.hex(gid.byteAt(i), 2)).append(':');
        }
        sb.append(CFormat.hex(srqn & 0xffffffffL, 8)).append(':');
        byte[] ascii = sb.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] msg = new byte[KEY_MSG_SIZE_GID];
        System.arraycopy(ascii, 0, msg, 0, ascii.length); // 107 characters, then the NUL
        return msg;
    }

    /**
     * Parses a hand-shake message (as {@code ethernet_read_keys}: hex fields separated by ':', the
     * text ends at the first NUL).
     *
     * @throws PerftestException when the message is not in that format
     */
    public static Dest decode(byte[] msg) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        String text = new String(msg, 0, end, StandardCharsets.US_ASCII);
        String[] f = text.split(":", -1);
        // lid, out_reads, qpn, psn, rkey, vaddr, 16 GID bytes, srqn, and the empty tail after the last ':'
        if (f.length < 23) {
            throw malformed(text);
        }
        try {
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) parseHex(f[6 + i], 2);
            }
            return new Dest((int) parseHex(f[0], 4), (int) parseHex(f[1], 4), (int) parseHex(f[2], 6),
                    (int) parseHex(f[3], 6), (int) parseHex(f[4], 8), Long.parseUnsignedLong(check(f[5], 16), 16),
                    Gid.of(gid), (int) parseHex(f[22], 8));
        } catch (NumberFormatException e) {
            throw malformed(text);
        }
    }

    private static String check(String s, int maxDigits) {
        if (s.isEmpty() || s.length() > maxDigits) {
            throw new NumberFormatException(s);
        }
        return s;
    }

    private static long parseHex(String s, int maxDigits) {
        return Long.parseLong(check(s, maxDigits), 16);
    }

    private static PerftestException malformed(String text) {
        String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return new PerftestException("peer sent a malformed QP hand-shake '" + shown.replaceAll("\\p{Cntrl}", "?")
                + "' (not perftest's exchange format)");
    }
}
