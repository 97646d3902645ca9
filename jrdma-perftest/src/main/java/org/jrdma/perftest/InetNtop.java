package org.jrdma.perftest;

/**
 * glibc's {@code inet_ntop(AF_INET6, ...)} text of a 16-byte address, as {@code ibv_rc_pingpong}
 * prints a GID: RFC 5952 style (lower-case hex, no leading zeros, the first longest run of two or
 * more zero groups as "::"), and the IPv4-mapped ({@code ::ffff:a.b.c.d}) and IPv4-compatible
 * ({@code ::a.b.c.d}) forms with the last 32 bits in dotted decimal. Java's
 * {@link java.net.Inet6Address#getHostAddress()} differs (no "::", and it turns mapped addresses
 * into IPv4 ones), hence this class.
 */
public final class InetNtop {
    private InetNtop() {
    }

    /**
     * @param a 16 bytes, network order
     * @return e.g. {@code "::ffff:10.77.0.11"}, {@code "fd77::11"}, {@code "::"}
     * @throws IllegalArgumentException when {@code a} is not 16 bytes long
     */
    public static String ntop6(byte[] a) {
        if (a.length != 16) {
            throw new IllegalArgumentException("an IPv6 address has 16 bytes, not " + a.length);
        }
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = (a[2 * i] & 0xff) << 8 | (a[2 * i + 1] & 0xff);
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (w[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && w[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(46);
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && w[5] == 0xffff))) {
                sb.append(a[12] & 0xff).append('.').append(a[13] & 0xff).append('.').append(a[14] & 0xff)
                        .append('.').append(a[15] & 0xff);
                return sb.toString();
            }
            sb.append(Integer.toHexString(w[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            sb.append(':');
        }
        return sb.toString();
    }
}
