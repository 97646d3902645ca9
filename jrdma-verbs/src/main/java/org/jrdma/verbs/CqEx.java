package org.jrdma.verbs;

/**
 * The extended poll API of a completion queue, {@code struct ibv_cq_ex} ({@code ibv_create_cq_ex(3)},
 * {@code ibv_start_poll}/{@code ibv_next_poll}/{@code ibv_end_poll} and the {@code ibv_wc_read_*}
 * accessors); made by {@link Context#createCqEx}. {@link #cq()} is the CQ itself (give it to QPs
 * as their send or receive CQ; {@code poll}, {@code reqNotify} and {@code close} work as on any CQ).
 *
 * <p>A poll: {@link #startPoll()} returns 0 with the oldest completion current (or
 * {@link Errno#ENOENT} when there is none: the poll is over then, do not call {@code endPoll});
 * {@link #wrId()}, {@link #status()} and the {@code read*} accessors tell the current completion's
 * fields; {@link #nextPoll()} makes the next one current (ENOENT when there is none);
 * {@link #endPoll()} ends the poll. Each completion made current is consumed. The {@code read*}
 * accessors of fields not requested in {@link CqInitAttrEx#wcFlags} ({@link WcExFlags}) throw
 * EINVAL (their function pointers are NULL in libibverbs); {@code readOpcode}, {@code readVendorErr}
 * and {@code readWcFlags} are always there. As with {@code ibv_poll_cq}, only wr_id, status,
 * vendor_err and qp_num are meaningful for a completion in error.
 *
 * <p>Threads: a poll belongs to the thread that started it until {@code endPoll} (a second
 * thread's {@code startPoll} waits, like rxe's CQ lock; producers are never held up: each
 * completion is taken out of the CQ under its lock when it is made current); any call of the
 * poll's other methods from another thread, or without a poll, throws EINVAL. Nothing allocates.
 * Like {@link CompletionQueue#poll}, a {@code startPoll} or {@code nextPoll} that finds the CQ
 * empty may receive and process a packet of the device in the calling thread first.
 */
public interface CqEx {
    /** The completion queue ({@code ibv_cq_ex_to_cq}). */
    CompletionQueue cq();

    /** The {@link WcExFlags} the CQ was created with. */
    long wcFlags();

    /**
     * {@code ibv_start_poll}: starts a poll with the oldest completion current.
     *
     * @return 0, or {@link Errno#ENOENT} when the CQ is empty (no poll is open then)
     * @throws VerbsException EINVAL when this thread has a poll open; EIO when the CQ is empty and in
     *     error after an overrun (no poll is open then)
     */
    int startPoll();

    /**
     * {@code ibv_next_poll}: makes the next completion current.
     *
     * @return 0, or {@link Errno#ENOENT} when there is none (call {@link #endPoll()} still)
     * @throws VerbsException EINVAL without a poll of this thread; EIO as {@link #startPoll()}
     */
    int nextPoll();

    /** {@code ibv_end_poll}: ends the poll. @throws VerbsException EINVAL without a poll of this thread */
    void endPoll();

    /** The current completion's wr_id ({@code cq_ex->wr_id}). */
    long wrId();

    /** The current completion's status ({@code cq_ex->status}). */
    WcStatus status();

    /** {@code ibv_wc_read_opcode}. */
    WcOpcode readOpcode();

    /** {@code ibv_wc_read_vendor_err} (jrdma: the AETH syndrome of a NAK, else 0). */
    int readVendorErr();

    /** {@code ibv_wc_read_byte_len}; needs {@link WcExFlags#WITH_BYTE_LEN}. */
    int readByteLen();

    /** {@code ibv_wc_read_imm_data} (host order); needs {@link WcExFlags#WITH_IMM}; valid with {@link WcFlags#WITH_IMM}. */
    int readImmData();

    /** {@code ibv_wc_read_qp_num}; needs {@link WcExFlags#WITH_QP_NUM}. */
    int readQpNum();

    /** {@code ibv_wc_read_src_qp}; needs {@link WcExFlags#WITH_SRC_QP}. */
    int readSrcQp();

    /** {@code ibv_wc_read_wc_flags}: {@link WcFlags} bits. */
    int readWcFlags();

    /** {@code ibv_wc_read_slid} (0 on RoCE); needs {@link WcExFlags#WITH_SLID}. */
    int readSlid();

    /** {@code ibv_wc_read_sl}; needs {@link WcExFlags#WITH_SL}. */
    int readSl();

    /** {@code ibv_wc_read_dlid_path_bits} (0 on RoCE); needs {@link WcExFlags#WITH_DLID_PATH_BITS}. */
    int readDlidPathBits();

    /**
     * {@code ibv_wc_read_completion_ts}: when the completion was written into the CQ, in the device
     * clock's units; needs {@link WcExFlags#WITH_COMPLETION_TIMESTAMP}. The software providers' clock
     * is {@code System.nanoTime()} (ns; CLOCK_MONOTONIC on Linux): differences are nanoseconds, the
     * origin is arbitrary. Providers without a clock refuse the flag at creation (EOPNOTSUPP).
     */
    long readCompletionTs();

    /**
     * {@code ibv_wc_read_completion_wallclock_ns}: when the completion was written, ns since the Unix
     * epoch; needs {@link WcExFlags#WITH_COMPLETION_TIMESTAMP_WALLCLOCK}. The software providers derive
     * it from the {@link #readCompletionTs()} clock and the wall clock read when the CQ was created.
     */
    long readCompletionWallclockNs();
}
