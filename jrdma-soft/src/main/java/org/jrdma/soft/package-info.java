/**
 * The shared core of the software providers: PD/MR tables and key checks, CQs, and the queue pair
 * as a composition the providers plug their wire protocol into.
 *
 * <h2>The QP</h2>
 * {@link org.jrdma.soft.SoftQp} implements {@link org.jrdma.verbs.QueuePair} from four parts:
 * {@link org.jrdma.soft.SendQueue} and {@link org.jrdma.soft.RecvQueue} (rings of pre-allocated
 * WQEs with lkey resolution and gather/scatter), {@link org.jrdma.soft.QpAttributes} (what
 * {@code ibv_modify_qp} sets) and {@link org.jrdma.soft.QpStateMachine} (IBTA's states, the
 * transition/mask table {@link org.jrdma.soft.QpTransitions}, the posting and flush rules). The
 * provider's {@link org.jrdma.soft.QpTransport} is called at the points where the protocol acts:
 * {@code checkModify}, {@code checkAddressVector}, {@code transition}, {@code sendPosted},
 * {@code afterSendPosted}, {@code recvPosted}, {@code flushed}, {@code beforeDestroy},
 * {@code destroyed}, {@code portMaxMtu}. Nothing here is specific to RoCE: the GRH requirement,
 * the IB transport attributes' checks and the 24-bit PSNs are the RoCE v2 transport's.
 *
 * <h2>Threads and locks</h2>
 * <ul>
 *   <li>Every verb may be called from any thread. A QP's state is guarded by its lock
 *       ({@link org.jrdma.soft.SoftQp#lock()}): the verbs take it, and so does the transport for
 *       the work it does on its own threads (received packets, timers).</li>
 *   <li>Lock order: a transport's own receive lock (if any), then one QP's lock, then the lock of
 *       one of its CQs ({@link org.jrdma.soft.SoftCq}, taken for each completion and by
 *       {@code poll}). No code holds two QP locks: a CQ overrun moves the CQ's other QPs to ERR
 *       from {@link org.jrdma.soft.SoftQp#raiseCqErrors()}, which runs after the lock is left and
 *       takes each QP's lock in turn.</li>
 *   <li>{@code poll} on an empty CQ calls {@link org.jrdma.soft.SoftContext#progress()} without
 *       the CQ's lock, so that a polling application thread can receive for the device.</li>
 *   <li>MR and QP lookups ({@link org.jrdma.soft.KeyTable}) are lock-free and allocation-free;
 *       creating and destroying resources is control path (the context's and the tables' monitors,
 *       never taken under a QP lock).</li>
 *   <li>Nothing on the data path (post, complete, poll, gather/scatter) allocates; a memory window
 *       bind allocates its one immutable {@link org.jrdma.soft.SoftMw} binding (lock-free readers
 *       must never see a binding change under them).</li>
 *   <li>Memory windows and rereg ({@link org.jrdma.soft.SoftMw}, {@link org.jrdma.soft.SoftMr#rereg}):
 *       a bind or invalidation runs under the lock of the QP that executes it and then takes the
 *       window's monitor, inside which nothing is locked; {@code rereg}, {@code dereg} and
 *       {@code dealloc_mw} take the region's or window's monitor alone (control path). What an rkey
 *       grants is resolved lock-free into an immutable {@link org.jrdma.soft.RemoteRange} (a region's
 *       translation, a window's binding) that the responder keeps for the request.</li>
 * </ul>
 */
package org.jrdma.soft;
