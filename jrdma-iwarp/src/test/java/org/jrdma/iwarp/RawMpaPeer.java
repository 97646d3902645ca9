package org.jrdma.iwarp;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * A hand-written MPA/DDP/RDMAP peer over a plain TCP socket, for tests that feed jsiw bytes of their
 * own. Every layout here is written from the RFCs, not from jrdma's wire classes: the MPA frame of
 * RFC 5044 §7.1 (16-byte key, then M 0x80, C 0x40, R 0x20 and siw's Enhanced 0x10 in byte 16, the
 * revision in byte 17, PD_Length), RFC 6581 §4 IRD/ORD (be16 each, low 14 bits), the FPDU of RFC 5044
 * §4 (ULPDU_Length, ULPDU, pad to 4, CRC32c stored least significant byte first as siw and Wireshark
 * do), and the DDP/RDMAP headers of RFC 5041 §4 / RFC 5040 §4 (control byte 0: T 0x80, L 0x40, DV 1;
 * byte 1: RV 1 in the top two bits, the opcode in the low four).
 */
final class RawMpaPeer implements AutoCloseable {
    static final byte[] REQ_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REP_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    static final int M = 0x80;
    static final int C = 0x40;
    static final int R = 0x20;
    static final int ENHANCED = 0x10;

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    boolean crc;

    RawMpaPeer(InetSocketAddress to) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        socket.connect(to, 10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** An MPA request or reply frame: {@code flags} byte 16, {@code revision} byte 17, then {@code pd}. */
    static byte[] frame(byte[] key, int flags, int revision, byte[] pd) {
        ByteBuffer b = ByteBuffer.allocate(20 + pd.length);
        b.put(key).put((byte) flags).put((byte) revision).putShort((short) pd.length).put(pd);
        return b.array();
    }

    /** RFC 6581 IRD/ORD block ({@code irdBits}/{@code ordBits}: the peer-to-peer and RTR bits) followed by {@code user}. */
    static byte[] irdOrd(int ird, int irdBits, int ord, int ordBits, byte[] user) {
        return ByteBuffer.allocate(4 + user.length).putShort((short) (ird | irdBits)).putShort((short) (ord | ordBits))
                .put(user).array();
    }

    void write(byte[] b) throws IOException {
        out.write(b);
        out.flush();
    }

    /** Reads an MPA frame (header and private data). */
    byte[] readFrame() throws IOException {
        byte[] h = new byte[20];
        in.readFully(h);
        int pd = (h[18] & 0xff) << 8 | (h[19] & 0xff);
        byte[] f = new byte[20 + pd];
        System.arraycopy(h, 0, f, 0, 20);
        in.readFully(f, 20, pd);
        return f;
    }

    /** An FPDU around {@code ulpdu}: length, ULPDU, pad, CRC (or zeros); {@code badCrc} flips a CRC bit. */
    byte[] fpdu(byte[] ulpdu, boolean badCrc) {
        int pad = -(2 + ulpdu.length) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).put(new byte[pad]);
        int c = 0;
        if (crc) {
            CRC32C x = new CRC32C();
            x.update(b.array(), 0, b.position());
            c = (int) x.getValue() ^ (badCrc ? 1 : 0);
        }
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(c);
        return b.array();
    }

    /** Reads one FPDU (all its bytes: length, ULPDU, pad, CRC). */
    byte[] readFpdu() throws IOException {
        int len = in.readUnsignedShort();
        int pad = -(2 + len) & 3;
        byte[] f = new byte[2 + len + pad + 4];
        f[0] = (byte) (len >> 8);
        f[1] = (byte) len;
        in.readFully(f, 2, len + pad + 4);
        return f;
    }

    /** True when the peer closed its side (FIN or RST) within the socket timeout, once {@code skip} bytes are read. */
    boolean closedByPeer() throws IOException {
        InputStream s = socket.getInputStream();
        try {
            return s.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (EOFException e) {
            return true;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("reset");
        }
    }

    /** DDP/RDMAP control bytes: T, L, DV 1, RV 1, opcode. */
    static byte[] ctrl(boolean tagged, boolean last, int opcode) {
        return new byte[] {(byte) ((tagged ? 0x80 : 0) | (last ? 0x40 : 0) | 0x01), (byte) (0x40 | (opcode & 0xf))};
    }

    /** A tagged ULPDU: control, STag, TO, payload. */
    static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(ctrl(true, last, opcode));
        o.writeBytes(ByteBuffer.allocate(12).putInt(stag).putLong(to).array());
        o.writeBytes(payload);
        return o.toByteArray();
    }

    /** An untagged ULPDU: control, reserved-for-ULP, QN, MSN, MO, payload. */
    static byte[] untagged(int opcode, boolean last, int ulp, int qn, int msn, int mo, byte[] payload) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(ctrl(false, last, opcode));
        o.writeBytes(ByteBuffer.allocate(16).putInt(ulp).putInt(qn).putInt(msn).putInt(mo).array());
        o.writeBytes(payload);
        return o.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
