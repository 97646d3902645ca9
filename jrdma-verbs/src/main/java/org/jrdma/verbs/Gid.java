package org.jrdma.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit global identifier, {@code union ibv_gid} (IBTA Vol 1 §4.1.1). On RoCE v2 a GID is an IP
 * address: an IPv6 address as is, an IPv4 address as the IPv4-mapped IPv6 address
 * {@code ::ffff:a.b.c.d}, exactly as rdma_rxe forms its GID table (RFC 4291 §2.5.5.2).
 * Immutable.
 */
public final class Gid {
    /** The all-zero GID. */
    public static final Gid ZERO = new Gid(new byte[16]);

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /** A GID from its 16 bytes in network order. @throws IllegalArgumentException unless 16 bytes */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /** The GID of an IP address: IPv6 as is, IPv4 mapped to {@code ::ffff:a.b.c.d}. */
    public static Gid of(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 16) {
            return new Gid(a);
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(a, 0, g, 12, 4);
        return new Gid(g);
    }

    /** The GID from 32 hex digits (with or without ':' separators), as perftest and rc_pingpong exchange it. */
    public static Gid parseHex(String hex) {
        String h = hex.replace(":", "");
        if (h.length() != 32) {
            throw new IllegalArgumentException("a GID is 32 hex digits, got '" + hex + "'");
        }
        return new Gid(HexFormat.of().parseHex(h));
    }

    /** The 16 bytes, network order (a copy). */
    public byte[] raw() {
        return raw.clone();
    }

    /** Byte {@code i} (0..15). */
    public int byteAt(int i) {
        return raw[i] & 0xff;
    }

    /** True for an IPv4-mapped GID ({@code ::ffff:a.b.c.d}), which RoCE v2 sends over IPv4. */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /** The IP address this GID stands for: IPv4 for a mapped GID, else IPv6. */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                return Inet4Address.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw.clone(), null);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** True for the all-zero GID. */
    public boolean isZero() {
        for (byte b : raw) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** The form {@code ibv_devinfo -v} prints: eight groups of four hex digits joined by ':'. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        HexFormat hf = HexFormat.of();
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hf.toHexDigits(raw[i])).append(hf.toHexDigits(raw[i + 1]));
        }
        return sb.toString();
    }
}
