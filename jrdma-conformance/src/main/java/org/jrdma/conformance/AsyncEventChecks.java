package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Context;

/** Waiting for, checking and draining asynchronous events ({@code ibv_get_async_event(3)}) in the conformance tests. */
final class AsyncEventChecks {
    private AsyncEventChecks() {
    }

    /** Takes the next event of {@code ctx} (liveness bound), asserts its type, and returns it unacknowledged. */
    static AsyncEvent next(Context ctx, AsyncEventType type, String what) {
        AsyncEvent e = ctx.getAsyncEvent(ConformanceBase.LIVENESS_NS, TimeUnit.NANOSECONDS);
        assertNotNull(e, what + ": no asynchronous event within the liveness bound (expected " + type + ")");
        assertEquals(type, e.type(), what + ": event " + e);
        return e;
    }

    /** Asserts that {@code ctx} has no event within {@code ms} milliseconds. */
    static void none(Context ctx, long ms, String what) {
        AsyncEvent e = ctx.getAsyncEvent(ms, TimeUnit.MILLISECONDS);
        if (e != null) {
            e.ack();
            fail(what + ": unexpected asynchronous event " + e);
        }
    }

    /** Takes and acknowledges every event {@code ctx} holds now (between tests). */
    static void drain(Context ctx) {
        for (AsyncEvent e; (e = ctx.getAsyncEvent(0, TimeUnit.NANOSECONDS)) != null; ) {
            e.ack();
        }
    }
}
