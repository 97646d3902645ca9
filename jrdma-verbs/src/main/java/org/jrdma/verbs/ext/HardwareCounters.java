package org.jrdma.verbs.ext;

import java.util.List;

/**
 * A device's hardware counters, as Linux shows them under
 * {@code /sys/class/infiniband/DEVICE/ports/1/hw_counters/} and {@code rdma statistic show link}:
 * a fixed list of names and a 64-bit count for each. Reached through
 * {@link org.jrdma.verbs.Context#extension(Class)}.
 *
 * <p>Counts are exact at some recent moment each; a set read one after another is not a
 * consistent snapshot. Any thread may read them; reading allocates nothing
 * ({@link #snapshot(long[])}).
 */
public interface HardwareCounters {
    /** The counter names, in index order (e.g. rxe's {@code sent_pkts}, {@code rcvd_pkts}, ...). Never changes. */
    List<String> names();

    /** The count of counter {@code index} (0 .. names().size()-1). @throws IndexOutOfBoundsException outside */
    long get(int index);

    /** The count of the counter named {@code name}. @throws IllegalArgumentException for an unknown name */
    default long get(String name) {
        int i = names().indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no counter named '" + name + "'");
        }
        return get(i);
    }

    /** Copies every count into {@code into} (at least names().size() long). */
    default void snapshot(long[] into) {
        int n = names().size();
        for (int i = 0; i < n; i++) {
            into[i] = get(i);
        }
    }
}
