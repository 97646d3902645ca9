/**
 * The RoCE v2 transport of a software device: RC/UC/UD queue pairs ({@link org.jrdma.rocev2.transport.RxeQp}
 * with its requester, responder and completer), receive dispatch, the device's I/O agent, its
 * timers, and the packet ports under them.
 *
 * <h2>Pieces</h2>
 * <ul>
 * <li>{@code RxeAgent}: the device's transport side, composed of the pieces below; what QPs and the
 *     context call.</li>
 * <li>{@code RxeRecv}: receive dispatch (rxe's {@code rxe_recv.c}): length, ICRC (with the IPv4
 *     Identification solved where the port cannot see it), TVer/opcode/pad/MTU
 *     ({@link org.jrdma.rocev2.wire.PacketValidator}), P_Key, destination QPN, then
 *     {@code RxeQp.receive(PacketInfo)}, which sends requests to the responder and responses to
 *     the completer.</li>
 * <li>{@code DeviceAgent}: the I/O loop as an Agrona {@code Agent} ({@code doWork()} returns
 *     packets received + timers fired), run by {@code AgentThread} under {@code DeviceIdleStrategy}
 *     (spin 50 µs, yield until {@code jrdma.spinMicros}, then block in poll(2) until a packet or
 *     the next timer tick; nap while application threads receive).</li>
 * <li>{@code TimerWheel}: retransmission and RNR timers, a hashed wheel of ~1 ms ticks with one
 *     pre-allocated timer per QP.</li>
 * <li>{@code AckCoalescer} (one ACK per QP per burst), {@code GrhWriter} (GRH area of UD
 *     receives).</li>
 * <li>{@link org.jrdma.rocev2.transport.Gsi}: QP1 and its MAD layer ({@code ManagementDatagrams}):
 *     agents, requests with retries on one wheel timer, Linux's answer to what no agent serves; its
 *     threads and its lock (after the receive lock, never with a QP's) are in its documentation.</li>
 * <li>{@link org.jrdma.rocev2.transport.PacketPort} and its implementations: single packets,
 *     trains ({@code sendTrain}: GSO or sendmmsg) and bursts ({@code receiveBurst}: recvmmsg);
 *     {@link org.jrdma.rocev2.transport.FaultShim} and {@link org.jrdma.rocev2.transport.PcapTap}
 *     between the transport and the network.</li>
 * </ul>
 *
 * <h2>Threads: who runs what</h2>
 * <ul>
 * <li><b>Posting threads</b> (any application thread in {@code postSend}/{@code postRecv}) run the
 *     requester: a post sends at once what the window allows, under the QP's lock, and may arm
 *     the retransmission timer. After a post a thread sends the ACKs a polling thread deferred,
 *     if no one is receiving ({@code flushDeferredAcks}).</li>
 * <li><b>The I/O agent thread</b> ({@code jrdma-DEVICE-io}, one per open device) receives
 *     bursts and runs dispatch, and through it the responder and the completer (which may call the
 *     requester to send more), and sends the coalesced ACKs; it alone owns the timer wheel and
 *     runs every expired timer ({@code RxeQp.onTimer}: retransmission, RNR wait over).</li>
 * <li><b>A polling application thread</b> that finds its CQ empty receives one packet in its own
 *     thread ({@code RxeAgent.progress()}, if no one else is receiving: a try-lock), that is, runs
 *     dispatch, responder and completer exactly as the I/O thread would; while any thread does,
 *     the I/O thread steps back (only timers, and naps of ~1 ms). A polling thread defers the ACKs
 *     of what it received ({@code jrdma.deferAcks}) until its next post or poll. It never runs
 *     timers. A thread about to block for a CQ event tells the I/O thread first
 *     ({@code applicationBlocking}), which then receives again at once.
 *     {@code -Djrdma.pollProgress=false} leaves all receiving to the I/O thread.</li>
 * <li><b>Closing threads</b> (destroying a QP, closing the last context) send the ACKs polling
 *     threads still owe (waiting for the receive lock), then, under the QP's lock, close it and
 *     cancel its timer (the I/O thread unlinks it at its next round), and stop the I/O thread
 *     (a flag and a port wake-up, no interrupt; joined for up to 2 s).</li>
 * </ul>
 *
 * <h2>Locks and their order</h2>
 * <ol>
 * <li>the device's <b>receive lock</b> ({@code DeviceAgent.rxLock}): held by whichever thread
 *     receives, for a burst (I/O thread) or one packet (polling thread, try-lock only); also
 *     guards the ACK list;</li>
 * <li>a <b>QP's lock</b>: every role's state; taken inside the receive lock for each packet, by
 *     posting threads without it, by the I/O thread for timers without it; never two QPs' locks at
 *     once (the ACK flush takes them one after the other);</li>
 * <li>a <b>CQ's lock</b>: taken inside a QP's lock to push a completion; a poller holds only
 *     the CQ's lock while it polls, and none while it calls {@code progress()}.</li>
 * </ol>
 * Always in this order (receive → QP → CQ); no thread takes the receive lock while it holds a QP
 * or CQ lock (a closing thread flushes owed ACKs before it takes the QP's lock). The <b>timer
 * wheel</b> takes no lock: {@code RxeQp.timerChanged()} (under the QP's lock, any thread) only
 * stores the QP's next deadline and, when it is earlier than the slot the wheel holds it in,
 * pushes the QP's timer on a lock-free stack; the I/O thread moves it into its slot and fires it
 * with no lock held but, inside {@code onTimer}, the QP's. Packet ports: sends from any number of
 * threads at once, receives by the holder of the receive lock (see
 * {@link org.jrdma.rocev2.transport.PacketPort}).
 *
 * <h2>Allocation</h2>
 * Nothing on these paths allocates in steady state: the burst, the packet-info flyweight, the
 * ACK list, the timers and the ports' train descriptors are allocated once (per device, per QP,
 * per sending thread).
 */
package org.jrdma.rocev2.transport;
