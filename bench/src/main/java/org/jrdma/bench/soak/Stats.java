package org.jrdma.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the soak counted, over all workers: work requests, completions and their outcome, messages
 * of the unreliable transports, object churn, and the failures (each with what is needed to find
 * it again). Any thread adds; the sampler and the verdict read.
 */
final class Stats {
    /** The failure descriptions kept (the count goes on beyond). */
    static final int KEPT_FAILURES = 30;

    final LongAdder posted = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder flushed = new LongAdder();
    /** Completions for a WR that already had one. */
    final LongAdder duplicates = new LongAdder();
    /** WRs whose QP was destroyed without a completion for them. */
    final LongAdder lost = new LongAdder();
    /** Messages (SEND, WRITE_WITH_IMM) whose every byte was checked at the receiver, and bytes checked in all. */
    final LongAdder verifiedMessages = new LongAdder();
    final LongAdder verifiedBytes = new LongAdder();
    /** RC READs and atomics checked at the requester. */
    final LongAdder verifiedReads = new LongAdder();
    final LongAdder verifiedAtomics = new LongAdder();
    /** UC / UD messages that need a receive, sent and received (loss is allowed there, duplication is not). */
    final LongAdder ucSent = new LongAdder();
    final LongAdder ucReceived = new LongAdder();
    final LongAdder udSent = new LongAdder();
    final LongAdder udReceived = new LongAdder();
    /** The same message delivered twice to a UC / UD receiver. */
    final LongAdder duplicateDeliveries = new LongAdder();
    final LongAdder pairs = new LongAdder();
    final LongAdder rcPairs = new LongAdder();
    final LongAdder ucPairs = new LongAdder();
    final LongAdder udPairs = new LongAdder();
    /** Pair lives ended with work in flight (the QPs moved to ERR mid-burst). */
    final LongAdder aborts = new LongAdder();
    final LongAdder qpsCreated = new LongAdder();
    final LongAdder mrsRegistered = new LongAdder();
    private final List<String> failures = new ArrayList<>();
    private long failureCount;

    /** Records a failure. */
    synchronized void fail(String what) {
        failureCount++;
        if (failures.size() < KEPT_FAILURES) {
            failures.add(what);
        }
    }

    synchronized long failureCount() {
        return failureCount;
    }

    synchronized List<String> failures() {
        return List.copyOf(failures);
    }
}
