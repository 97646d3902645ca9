package org.jrdma.fabric.net;

import java.util.Arrays;

/**
 * A set of byte ranges {@code [start, end)} kept sorted and disjoint (adjacent ranges merge): a TCP
 * receiver's out-of-order data and a sender's SACK scoreboard. A growable pair of arrays; adding
 * allocates only when the set outgrows its capacity. Simulator thread only.
 */
final class Intervals {
    private long[] start = new long[8];
    private long[] end = new long[8];
    private int n;

    int size() {
        return n;
    }

    boolean isEmpty() {
        return n == 0;
    }

    long start(int i) {
        return start[i];
    }

    long end(int i) {
        return end[i];
    }

    void clear() {
        n = 0;
    }

    /** Adds {@code [s, e)}, merging what it touches. */
    void add(long s, long e) {
        if (e <= s) {
            return;
        }
        int i = 0;
        while (i < n && end[i] < s) {
            i++;
        }
        int j = i;
        while (j < n && start[j] <= e) {
            s = Math.min(s, start[j]);
            e = Math.max(e, end[j]);
            j++;
        }
        int removed = j - i;
        if (removed == 0) {
            if (n == start.length) {
                start = Arrays.copyOf(start, 2 * n);
                end = Arrays.copyOf(end, 2 * n);
            }
            System.arraycopy(start, i, start, i + 1, n - i);
            System.arraycopy(end, i, end, i + 1, n - i);
            n++;
        } else if (removed > 1) {
            System.arraycopy(start, j, start, i + 1, n - j);
            System.arraycopy(end, j, end, i + 1, n - j);
            n -= removed - 1;
        }
        start[i] = s;
        end[i] = e;
    }

    /** Drops everything below {@code x}. */
    void removeBelow(long x) {
        int i = 0;
        while (i < n && end[i] <= x) {
            i++;
        }
        if (i > 0) {
            System.arraycopy(start, i, start, 0, n - i);
            System.arraycopy(end, i, end, 0, n - i);
            n -= i;
        }
        if (n > 0 && start[0] < x) {
            start[0] = x;
        }
    }

    /** Bytes of the set inside {@code [a, b)}. */
    long bytesIn(long a, long b) {
        long sum = 0;
        for (int i = 0; i < n && start[i] < b; i++) {
            long s = Math.max(a, start[i]);
            long e = Math.min(b, end[i]);
            if (e > s) {
                sum += e - s;
            }
        }
        return sum;
    }

    /** True if byte {@code x} is in the set. */
    boolean contains(long x) {
        for (int i = 0; i < n && start[i] <= x; i++) {
            if (x < end[i]) {
                return true;
            }
        }
        return false;
    }

    /** The end of the range holding {@code x}, or {@code x} if none does. */
    long endOfRangeAt(long x) {
        for (int i = 0; i < n && start[i] <= x; i++) {
            if (x < end[i]) {
                return end[i];
            }
        }
        return x;
    }

    /** The start of the first range above {@code x}, or {@link Long#MAX_VALUE}. */
    long nextStartAfter(long x) {
        for (int i = 0; i < n; i++) {
            if (start[i] > x) {
                return start[i];
            }
        }
        return Long.MAX_VALUE;
    }

    /** The highest byte + 1 in the set, or {@code dflt} if empty. */
    long highest(long dflt) {
        return n == 0 ? dflt : end[n - 1];
    }
}
