package org.jrdma.rocev2.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.jrdma.rocev2.wire.DropReason;

/**
 * Per-device packet and error counters: one {@code long[]} indexed by counter id, with names. The first
 * 15 are Linux rxe's hw_counters with its names ({@code drivers/infiniband/sw/rxe/rxe_hw_counters.c},
 * shown under {@code /sys/class/infiniband/rxe0/ports/1/hw_counters/}); then one counter per
 * {@link DropReason}, named {@code rcvd_drop_<reason>}, which rxe does not have (it drops silently).
 *
 * <p>Writers: {@link #increment} and {@link #add} are a plain read plus an opaque write, correct for a
 * single writing thread per counter (the I/O thread); {@link #addAtomic} is for counters several threads
 * write. Readers on any thread use {@link #get} / {@link #snapshot} (opaque reads: each value is an exact
 * count at some recent moment; the set is not a consistent snapshot). Nothing allocates after
 * construction.
 */
public final class Counters {
    /** rxe hw_counter "sent_pkts". */
    public static final int SENT_PKTS = 0;
    /** rxe hw_counter "rcvd_pkts". */
    public static final int RCVD_PKTS = 1;
    /** rxe hw_counter "duplicate_request". */
    public static final int DUPLICATE_REQUEST = 2;
    /** rxe hw_counter "out_of_seq_request". */
    public static final int OUT_OF_SEQ_REQUEST = 3;
    /** rxe hw_counter "rcvd_rnr_err". */
    public static final int RCVD_RNR_ERR = 4;
    /** rxe hw_counter "send_rnr_err". */
    public static final int SEND_RNR_ERR = 5;
    /** rxe hw_counter "rcvd_seq_err". */
    public static final int RCVD_SEQ_ERR = 6;
    /** rxe hw_counter "ack_deferred". */
    public static final int ACK_DEFERRED = 7;
    /** rxe hw_counter "retry_exceeded_err". */
    public static final int RETRY_EXCEEDED_ERR = 8;
    /** rxe hw_counter "retry_rnr_exceeded_err". */
    public static final int RETRY_RNR_EXCEEDED_ERR = 9;
    /** rxe hw_counter "completer_retry_err". */
    public static final int COMPLETER_RETRY_ERR = 10;
    /** rxe hw_counter "send_err". */
    public static final int SEND_ERR = 11;
    /** rxe hw_counter "link_downed". */
    public static final int LINK_DOWNED = 12;
    /** rxe hw_counter "rdma_sends". */
    public static final int RDMA_SENDS = 13;
    /** rxe hw_counter "rdma_recvs". */
    public static final int RDMA_RECVS = 14;
    /** Id of the drop counter of {@link DropReason} r is {@code RCVD_DROP_BASE + r} (r = 1..). */
    public static final int RCVD_DROP_BASE = 15;
    /** Number of counters. */
    public static final int COUNT = RCVD_DROP_BASE + DropReason.COUNT;

    private static final String[] NAMES = new String[COUNT];
    private static final VarHandle AA = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        String[] rxe = {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
            "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
            "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"};
        System.arraycopy(rxe, 0, NAMES, 0, rxe.length);
        for (int r = 0; r < DropReason.COUNT; r++) {
            NAMES[RCVD_DROP_BASE + r] = "rcvd_drop_" + DropReason.name(r);
        }
    }

    private final long[] values = new long[COUNT];

    /** The name of counter {@code id} ("rcvd_pkts", "rcvd_drop_bad_icrc"), or null outside 0..COUNT-1. */
    public static String name(int id) {
        return id >= 0 && id < COUNT ? NAMES[id] : null;
    }

    /** The id of the counter named {@code name}, or -1. */
    public static int id(String name) {
        for (int i = 0; i < COUNT; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Adds 1 to counter {@code id} (single writer). @throws ArrayIndexOutOfBoundsException for a bad id */
    public void increment(int id) {
        AA.setOpaque(values, id, (long) AA.getOpaque(values, id) + 1);
    }

    /** Adds {@code n} to counter {@code id} (single writer). */
    public void add(int id, long n) {
        AA.setOpaque(values, id, (long) AA.getOpaque(values, id) + n);
    }

    /** Adds {@code n} to counter {@code id} atomically (any number of writers). */
    public void addAtomic(int id, long n) {
        AA.getAndAdd(values, id, n);
    }

    /** Counts a packet dropped for {@code reason} ({@link DropReason}); {@link DropReason#OK} or unknown: no-op. */
    public void drop(int reason) {
        if (reason > 0 && reason < DropReason.COUNT) {
            increment(RCVD_DROP_BASE + reason);
        }
    }

    /** The current value of counter {@code id}. */
    public long get(int id) {
        return (long) AA.getOpaque(values, id);
    }

    /** Copies all counters into {@code into[0, COUNT)}. */
    public void snapshot(long[] into) {
        for (int i = 0; i < COUNT; i++) {
            into[i] = (long) AA.getOpaque(values, i);
        }
    }
}
