package org.jrdma.soft;

import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpState;

/**
 * What a provider's transport (RoCE v2, iWARP, a test loopback) supplies to a {@link SoftQp}: the
 * core keeps the queues, the attributes and the IBTA state machine and calls these methods at the
 * points where the wire protocol must act. A transport gets at the queues and attributes through
 * the {@link SoftQp} it was created for ({@link SoftQp#sendQueue()}, {@link SoftQp#recvQueue()},
 * {@link SoftQp#attributes()}) and completes work through it ({@link SoftQp#completeSendHead},
 * {@link SoftQp#completeRecvHead}, {@link SoftQp#enterError()}).
 *
 * <p>Threads and locks: every method but {@link #afterSendPosted()} and {@link #beforeDestroy()}
 * is called with the QP's lock ({@link SoftQp#lock()}) held, on the thread of the verb that caused
 * it (a posting thread, a thread in {@code modify} or {@code close}); the transport takes the same
 * lock for the work it does on its own threads. The methods must not block and must not take the
 * lock of another QP.
 */
public interface QpTransport {
    /** The largest path MTU of the QP's port; {@code modify} refuses a larger PATH_MTU with EINVAL. */
    Mtu portMaxMtu();

    /**
     * Checks the attribute values of a {@code modify} that only this transport interprets (IB/RoCE:
     * timeout, retry_cnt, rnr_retry, min_rnr_timer), before anything changes. The core has already
     * checked the transition, the mask and the provider-neutral values.
     *
     * @throws org.jrdma.verbs.VerbsException EINVAL for a value the transport does not accept
     */
    void checkModify(QpAttr attr, int mask, QpState from, QpState to);

    /**
     * Checks an address vector given with {@link org.jrdma.verbs.QpAttrMask#AV} (for RoCE: it has a
     * GRH with a destination GID of the device's IP version and an existing source GID index).
     *
     * @throws org.jrdma.verbs.VerbsException EINVAL when the transport cannot reach it
     */
    void checkAddressVector(AhAttr av);

    /**
     * The QP moved from {@code from} to {@code to} (possibly the same state) and the attributes of
     * {@code mask} are applied. Also called, with mask 0, when the QP enters ERR on its own (an
     * error completion, {@link SoftQp#enterError()}). On {@code to == RESET} both queues are already
     * empty: forget every protocol state. On {@code to == ERR} the queues are flushed right after
     * this call ({@link #flushed()} follows).
     */
    void transition(QpState from, QpState to, int mask);

    /**
     * Checks a send WR against what the transport can carry, before the core checks and queues it
     * ({@code ibv_post_send}; the WR is refused and stays unposted, as {@code bad_wr}). The default
     * accepts everything the core does; iWARP refuses what RDMAP has no message for (immediate
     * data, atomics) with the errno siw gives. Under the QP's lock, on the posting thread.
     *
     * @throws org.jrdma.verbs.VerbsException the provider's errno
     */
    default void checkSend(org.jrdma.verbs.SendWr wr) {
    }

    /** Send WRs were added to the send queue and the QP is not in ERR (it is in RTS, SQD or SQE). */
    void sendPosted();

    /**
     * Called after {@code postSend} has left the lock, on the posting thread, also when a WR of
     * the chain was refused (e.g. to send work the transport deferred). Without the QP's lock.
     */
    default void afterSendPosted() {
    }

    /** Receive WRs were added to the receive queue and the QP is not in ERR (e.g. ends an RNR wait). */
    void recvPosted();

    /**
     * Both queues were flushed (every outstanding WR completed with WR_FLUSH_ERR): forget the
     * in-flight state that referred to them.
     */
    void flushed();

    /**
     * The QP is about to be destroyed; it still works (e.g. to send the acknowledgements the
     * transport owes the peer). Called without the QP's lock, before {@link #destroyed()}.
     */
    default void beforeDestroy() {
    }

    /** The QP is destroyed (its state is RESET, its queues are no longer used): release transport resources. */
    void destroyed();
}
