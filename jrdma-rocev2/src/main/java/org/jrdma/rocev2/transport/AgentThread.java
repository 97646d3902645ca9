package org.jrdma.rocev2.transport;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;

/**
 * Runs one {@link Agent} on its own platform daemon thread under an {@link IdleStrategy}:
 * {@code while (running) idle.idle(agent.doWork())}, with {@link Agent#onStart()} and
 * {@link Agent#onClose()} around it. Unlike Agrona's {@code AgentRunner} it never interrupts the
 * thread to stop it (an interrupt would close a capture's {@code FileChannel} under the agent):
 * {@link #close()} clears the flag and runs the wake-up action (the port's {@link PacketPort#wakeup()}),
 * and the loop ends within one idle round. An exception from the agent or the strategy goes to the
 * error handler and the loop goes on.
 */
final class AgentThread implements AutoCloseable {
    private final Agent agent;
    private final IdleStrategy idle;
    private final org.agrona.ErrorHandler errors;
    private final Runnable wakeup;
    private volatile boolean running;
    private Thread thread;

    AgentThread(Agent agent, IdleStrategy idle, org.agrona.ErrorHandler errors, Runnable wakeup) {
        this.agent = agent;
        this.idle = idle;
        this.errors = errors;
        this.wakeup = wakeup;
    }

    /** Starts the thread, named after {@link Agent#roleName()}; once. */
    synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException(agent.roleName() + " already started");
        }
        running = true;
        thread = Thread.ofPlatform().name(agent.roleName()).daemon(true).start(this::run);
    }

    private void run() {
        try {
            agent.onStart();
        } catch (Throwable t) {
            errors.onError(t);
        }
        while (running) {
            try {
                idle.idle(agent.doWork());
            } catch (Throwable t) {
                errors.onError(t);
            }
        }
        try {
            agent.onClose();
        } catch (Throwable t) {
            errors.onError(t);
        }
    }

    /** Stops the loop and waits for the thread (up to 2 s). */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            wakeup.run();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
