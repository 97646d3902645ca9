package org.jrdma.perftest;

import java.util.Locale;

/**
 * The few C {@code printf} conversions perftest's output uses that {@link String#format} does not
 * reproduce: {@code %#0Nx} (alternate hex with zero padding, where 0 prints without "0x") and
 * {@code %02d} bytes. Everything else ({@code %-7.2f}, {@code %-10d}) maps 1:1 onto
 * {@link String#format(Locale, String, Object...)} with {@link Locale#ROOT}.
 */
public final class CFormat {
    private CFormat() {
    }

    /**
     * C's {@code %#0<width>x}: "0x" then lower-case hex digits, zero-padded so the whole field is
     * {@code width} characters; a zero value prints as {@code width} zeros without "0x" (C99 7.19.6.1,
     * the '#' flag has no effect on zero). Never truncates.
     *
     * @param value the value, taken as unsigned 64 bits
     * @param width the minimum field width including "0x"
     */
    public static String altHex(long value, int width) {
        String digits = Long.toHexString(value);
        if (value == 0) {
            return "0".repeat(Math.max(width, 1));
        }
        int pad = width - 2 - digits.length();
        return pad > 0 ? "0x" + "0".repeat(pad) + digits : "0x" + digits;
    }

    /** C's {@code %0<width>x} for an unsigned value. */
    public static String hex(long value, int width) {
        String digits = Long.toHexString(value);
        int pad = width - digits.length();
        return pad > 0 ? "0".repeat(pad) + digits : digits;
    }

    /** {@link String#format} with {@link Locale#ROOT} (a '.' decimal point whatever the user's locale). */
    public static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
