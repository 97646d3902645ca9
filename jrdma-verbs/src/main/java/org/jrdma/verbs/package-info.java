/**
 * The verbs API: libibverbs in Java form. {@code ibv_get_device_list} is {@link org.jrdma.verbs.Verbs#getDeviceList()},
 * {@code ibv_open_device} {@link org.jrdma.verbs.Device#open()}, {@code ibv_alloc_pd}
 * {@link org.jrdma.verbs.Context#allocPd()}, {@code ibv_reg_mr} {@link org.jrdma.verbs.ProtectionDomain#regMr},
 * {@code ibv_create_cq} {@link org.jrdma.verbs.Context#createCq}, {@code ibv_create_qp}
 * {@link org.jrdma.verbs.ProtectionDomain#createQp}, {@code ibv_modify_qp} {@link org.jrdma.verbs.QueuePair#modify},
 * {@code ibv_post_send} {@link org.jrdma.verbs.QueuePair#postSend}, {@code ibv_poll_cq}
 * {@link org.jrdma.verbs.CompletionQueue#poll}; constants keep their libibverbs values and names
 * ({@code IBV_WC_REM_ACCESS_ERR} is {@link org.jrdma.verbs.WcStatus#REM_ACCESS_ERR}); errors are
 * {@link org.jrdma.verbs.VerbsException} carrying the errno libibverbs returns. The extended API:
 * {@code ibv_create_qp_ex} is {@link org.jrdma.verbs.Context#createQpEx} (a {@link org.jrdma.verbs.QpEx}
 * with the {@code ibv_wr_*} builders), {@code ibv_create_cq_ex} {@link org.jrdma.verbs.Context#createCqEx}
 * (a {@link org.jrdma.verbs.CqEx} with {@code ibv_start_poll}/{@code ibv_next_poll}/{@code ibv_end_poll}).
 *
 * <h2>Threads</h2>
 * As in libibverbs, every call may be made from any thread:
 * <ul>
 * <li>{@code postSend}, {@code postRecv} and {@code modify} of one QP serialize on that QP; posts to
 *     different QPs run in parallel. A post copies the work request, so the caller may reuse it at once.</li>
 * <li>{@code poll} of one CQ serializes on that CQ; any number of threads may poll.</li>
 * <li>Control-path calls (create, register, close) are thread-safe; closing a resource while another
 *     thread still uses it is a programming error, as in C (it fails with EBUSY where libibverbs does).</li>
 * <li>{@code postSrqRecv}, {@code modify} and {@code query} of one SRQ serialize on that SRQ.</li>
 * <li>{@link org.jrdma.verbs.Context#getAsyncEvent()} blocks only the calling thread (any number may
 *     wait; each event goes to one of them); the provider raises events without ever waiting for the
 *     application ({@code ibv_get_async_event(3)}).</li>
 * </ul>
 * Who does the work in the software RoCE v2 provider: the posting thread runs the requester (segments
 * the message and sends what the window allows at once); each device has one I/O thread that receives
 * every packet and runs the responders (placing data, answering READs and atomics, ACKing) and the
 * completers (retiring WQEs on ACKs and responses, writing CQEs, resending on NAKs and timeouts),
 * then sends more from the requesters whose window opened. Completions therefore appear on a CQ
 * without the application doing anything but poll, as on a hardware RNIC; the I/O thread busy-polls
 * while traffic flows and sleeps in poll(2) when the device is idle.
 *
 * <h2>Memory</h2>
 * Registered memory is a native {@link java.lang.foreign.MemorySegment} that every thread may access
 * ({@code Arena.ofShared()}, {@code Arena.ofAuto()} or {@code Arena.global()}); addresses in SGEs and
 * remote addresses are its virtual addresses ({@code segment.address()}), as in C.
 */
package org.jrdma.verbs;
