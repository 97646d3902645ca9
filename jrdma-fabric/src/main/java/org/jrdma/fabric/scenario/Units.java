package org.jrdma.fabric.scenario;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Numbers with units in scenario files. Rates: {@code bps}, {@code Kbps}, {@code Mbps},
 * {@code Gbps}, {@code Tbps} (or {@code K}, {@code M}, {@code G}, {@code T}; powers of 1000).
 * Sizes: {@code B}, {@code KB}, {@code MB}, {@code GB} (powers of 1000), {@code KiB}, {@code MiB},
 * {@code GiB} (powers of 1024); a bare number is bytes. Times: {@code ps}, {@code ns}, {@code us},
 * {@code ms}, {@code s}; a bare 0 is allowed. Decimal fractions are allowed ({@code 1.5us}); a
 * result that is not a whole number of the base unit (bit/s, byte, ps) is refused.
 */
public final class Units {
    private Units() {
    }

    /** A rate in bit/s. */
    public static long rate(String s) {
        String[][] u = {{"tbps", "1000000000000"}, {"gbps", "1000000000"}, {"mbps", "1000000"}, {"kbps", "1000"},
                {"bps", "1"}, {"t", "1000000000000"}, {"g", "1000000000"}, {"m", "1000000"}, {"k", "1000"}};
        return scaled(s, u, true, "a rate such as 40Gbps");
    }

    /** A size in bytes. */
    public static long size(String s) {
        String[][] u = {{"gib", "1073741824"}, {"mib", "1048576"}, {"kib", "1024"}, {"gb", "1000000000"},
                {"mb", "1000000"}, {"kb", "1000"}, {"b", "1"}};
        return scaled(s, u, false, "a size such as 64KB or 32MiB");
    }

    /** A time in ps. */
    public static long time(String s) {
        String[][] u = {{"ps", "1"}, {"ns", "1000"}, {"us", "1000000"}, {"ms", "1000000000"}, {"s", "1000000000000"}};
        if (s.equals("0")) {
            return 0;
        }
        return scaled(s, u, true, "a time such as 1us or 50ms");
    }

    private static long scaled(String s, String[][] units, boolean unitRequired, String what) {
        String l = s.toLowerCase(Locale.ROOT);
        for (String[] u : units) {
            if (l.endsWith(u[0]) && l.length() > u[0].length()) {
                return whole(l.substring(0, l.length() - u[0].length()), new BigDecimal(u[1]), s, what);
            }
        }
        if (!unitRequired) {
            return whole(l, BigDecimal.ONE, s, what);
        }
        throw new IllegalArgumentException("'" + s + "' is not " + what);
    }

    private static long whole(String number, BigDecimal scale, String s, String what) {
        BigDecimal v;
        try {
            v = new BigDecimal(number).multiply(scale);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s + "' is not " + what);
        }
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + s + "' is not a whole number of the base unit or too large");
        }
    }
}
