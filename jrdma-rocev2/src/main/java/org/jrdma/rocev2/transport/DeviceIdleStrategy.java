package org.jrdma.rocev2.transport;

import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.IdleStrategy;

/**
 * How a device's I/O agent waits when a {@link DeviceAgent#doWork()} found nothing to do: an
 * Agrona {@link IdleStrategy} in three steps after the last work (a packet received or a timer
 * fired), then a fourth while application threads receive:
 * <ol>
 * <li>for {@link #PURE_SPIN_NANOS} it spins ({@link Thread#onSpinWait()}): the next request of a
 *     ping-pong is due within microseconds. A thread that yields here stays "cache hot" for the
 *     scheduler, and one woken by a loopback packet onto the sender's core (a sync wakeup) then
 *     shares that core with the spinning sender for tenths of a second while the other idles
 *     (ib_read_lat -n 5000 on two cores: 21-25 µs typical against 7.1-7.6);</li>
 * <li>until {@code jrdma.spinMicros} (default 200 µs) it busy-polls but yields the core between
 *     polls ({@link Thread#yield()}): on a machine with fewer cores than spinning threads (an
 *     application polling a CQ or memory, the peer process) pure spinning costs a scheduler slice
 *     per hop;</li>
 * <li>then it blocks in {@code poll(2)} on the port ({@link PacketPort#awaitReadable}) until a
 *     datagram arrives, {@link PacketPort#wakeup()}, the end of the timer wheel's current tick
 *     (at most about 1 ms), so that timers still fire, or the time a QP paced by DCQCN may send
 *     again ({@link Pacer});</li>
 * <li>while the agent steps back for polling application threads ({@link DeviceAgent#steppedBack()})
 *     it naps {@link DeviceAgent#EXTERNAL_PROGRESS_NANOS}, or until a paced QP is due if that is
 *     sooner (ended early by {@link DeviceAgent#applicationBlocking()} and by a QP paced sooner),
 *     whatever the steps above say.</li>
 * </ol>
 * Runs on the agent thread only; allocation-free; one System.nanoTime per idle round.
 */
final class DeviceIdleStrategy implements IdleStrategy {
    /** How long after the last work the agent spins without yielding its core, ns. */
    static final long PURE_SPIN_NANOS = 50_000;
    private final DeviceAgent agent;
    private final PacketPort port;
    /** How long the agent busy-polls after the last work before it blocks, ns ({@code jrdma.spinMicros}). */
    private final long spinNanos;
    private long lastWork = System.nanoTime();

    DeviceIdleStrategy(DeviceAgent agent, PacketPort port, long spinNanos) {
        this.agent = agent;
        this.port = port;
        this.spinNanos = spinNanos;
    }

    @Override
    public void idle(int workCount) {
        if (agent.steppedBack()) {
            long t0 = System.nanoTime();
            long nap = Math.min(DeviceAgent.EXTERNAL_PROGRESS_NANOS, agent.nanosToNextPace(t0));
            if (nap > 0) {
                agent.sleeping(t0 + nap);
                LockSupport.parkNanos(nap);
                agent.sleeping(0);
            }
            return;
        }
        long now = System.nanoTime();
        if (workCount > 0) {
            lastWork = now;
            return;
        }
        long since = now - lastWork;
        if (since < PURE_SPIN_NANOS) {
            Thread.onSpinWait();
        } else if (since < spinNanos) {
            Thread.yield();
        } else {
            long timeout = agent.nanosToNextTimer(now);
            agent.sleeping(now + Math.max(timeout, 1));
            port.awaitReadable(timeout);
            agent.sleeping(0);
        }
    }

    @Override
    public void idle() {
        idle(0);
    }

    @Override
    public void reset() {
        lastWork = System.nanoTime();
    }

    @Override
    public String alias() {
        return "spin-yield-poll";
    }
}
