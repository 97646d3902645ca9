package org.jrdma.perftest;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.jrdma.verbs.Gid;

/**
 * What one side of {@code ibv_rc_pingpong} tells the other (rdma-core
 * {@code libibverbs/examples/rc_pingpong.c}, {@code struct pingpong_dest}), and its TCP form: the
 * ASCII text {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN and the wire GID (32 hex digits,
 * {@code gid_to_wire_gid} in {@code pingpong.c}), NUL-terminated, always {@value #MSG_SIZE} bytes
 * ({@code sizeof "0000:000000:000000:00000000000000000000000000000000"}).
 *
 * @param lid LID, 16 bits (0 on RoCE)
 * @param qpn QPN, 24 bits
 * @param psn the first PSN this side sends, 24 bits
 * @param gid GID of the chosen index, or {@link Gid#ZERO} when none ({@code -g} not given)
 */
public record PingpongDest(int lid, int qpn, int psn, Gid gid) {
    /** Bytes of one message on the wire, with the terminating NUL. */
    public static final int MSG_SIZE = 52;

    /** The {@value #MSG_SIZE}-byte message. */
    public byte[] encode() {
        String text = CFormat.hex(lid & 0xffff, 4) + ':' + CFormat.hex(qpn & 0xffffff, 6) + ':'
                + CFormat.hex(psn & 0xffffff, 6) + ':' + wireGid(gid);
        byte[] msg = new byte[MSG_SIZE];
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, msg, 0, ascii.length);
        return msg;
    }

    /**
     * {@code gid_to_wire_gid}: the 16 GID bytes as 32 lower-case hex digits, in wire (network) order.
     */
    public static String wireGid(Gid gid) {
        return HexFormat.of().formatHex(gid.raw());
    }

    /**
     * Parses a message as {@code sscanf(msg, "%x:%x:%x:%s")} and {@code wire_gid_to_gid} do.
     *
     * @throws PerftestException when the text is not in that format
     */
    public static PingpongDest decode(byte[] msg) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        String text = new String(msg, 0, end, StandardCharsets.US_ASCII);
        String[] f = text.split(":", -1);
        if (f.length != 4 || f[3].length() != 32) {
            throw malformed(text);
        }
        try {
            return new PingpongDest(hex(f[0], 0xffff), hex(f[1], 0xffffff), hex(f[2], 0xffffff),
                    Gid.of(HexFormat.of().parseHex(f[3])));
        } catch (IllegalArgumentException e) {
            throw malformed(text);
        }
    }

    private static int hex(String s, int max) {
        if (s.isEmpty() || s.length() > 8) {
            throw new IllegalArgumentException(s);
        }
        long v = Long.parseLong(s, 16);
        if (v > max) {
            throw new IllegalArgumentException(s);
        }
        return (int) v;
    }

    private static PerftestException malformed(String text) {
        String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return new PerftestException("peer sent a malformed address '" + shown.replaceAll("\\p{Cntrl}", "?")
                + "' (not ibv_rc_pingpong's exchange format)");
    }

    /**
     * The address line {@code ibv_rc_pingpong} prints:
     * {@code "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n"} (the GID as glibc's
     * {@code inet_ntop}).
     *
     * @param local true for "local address: ", false for "remote address:"
     */
    public String line(boolean local) {
        return line(local, ", GID ");
    }

    /**
     * The address line with another text before the GID: {@code ibv_ud_pingpong} prints its local
     * address with {@code ": GID "}, the remote one with {@code ", GID "} (ud_pingpong.c).
     */
    public String line(boolean local, String beforeGid) {
        return (local ? "  local address:  " : "  remote address: ") + "LID 0x" + CFormat.hex(lid & 0xffff, 4)
                + ", QPN 0x" + CFormat.hex(qpn & 0xffffff, 6) + ", PSN 0x" + CFormat.hex(psn & 0xffffff, 6) + beforeGid
                + InetNtop.ntop6(gid.raw()) + "\n";
    }
}
