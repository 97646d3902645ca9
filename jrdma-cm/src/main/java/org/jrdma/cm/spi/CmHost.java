package org.jrdma.cm.spi;

import java.util.concurrent.ScheduledFuture;

/** The CM's side offered to a {@link CmTransport}: its thread, on which tasks run under the CM lock. */
public interface CmHost {
    /** Runs {@code task} on the CM thread ({@code jrdma-cm}) under the CM lock. Any thread; takes no lock. */
    void execute(Runnable task);

    /** Runs {@code task} on the CM thread under the CM lock after {@code delayMs} milliseconds. */
    ScheduledFuture<?> schedule(Runnable task, long delayMs);
}
