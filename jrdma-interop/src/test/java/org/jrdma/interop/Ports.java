package org.jrdma.interop;

import java.util.concurrent.atomic.AtomicInteger;

/** A fresh TCP port for each perftest exchange (-p), so no run meets the last one's TIME_WAIT. */
final class Ports {
    private static final AtomicInteger NEXT = new AtomicInteger(18600);

    private Ports() {
    }

    static int next() {
        return NEXT.getAndIncrement();
    }
}
