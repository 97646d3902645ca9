package org.jrdma.congestion;

/**
 * DCQCN's reaction point for one flow (a QP): the rate limiter's current rate RC, target rate RT,
 * α, the timer counter T and byte counter BC, and the α, decrease and increase timers, in the
 * {@link DcqcnParameters.Variant variant} its parameters name.
 *
 * <p>No clock: every call takes the caller's time in <b>nanoseconds</b> (any origin, never going
 * backwards). Timers are deadlines kept inside; {@link #advance(long)} runs every expiry up to the
 * given time in deadline order (ties: decrease, α, increase), and every other call advances first.
 * So calling {@code advance} more often (e.g. to sample the rate) never changes the result, and a
 * virtual clock (the fabric simulator) or a real one (the RoCE v2 transport) drives it alike;
 * {@link #nextDeadlineNs()} tells an event-driven caller when something changes next.
 *
 * <p>Before the first CNP the flow runs at line rate and no timer runs. Rates are in bit/s, within
 * [{@code minRateBps}, line rate]. Nothing allocates after construction.
 *
 * <p>Not thread-safe: one thread (the one that sends for the QP) owns it.
 */
public final class DcqcnReactionPoint {
    private static final long NEVER = Long.MAX_VALUE;

    private final DcqcnParameters p;
    private final boolean paper;
    private final double lineRateBps;
    private double rc;
    private double rt;
    private double alpha;
    private boolean active;
    private int timerStage;
    private int byteStage;
    private long bytesSinceStep;
    private boolean alphaCnpArrived;
    private boolean decreasePending;
    private long alphaDeadline = NEVER;
    private long decreaseDeadline = NEVER;
    private long increaseDeadline = NEVER;
    private long lastNs = Long.MIN_VALUE;
    private long cnpHandled;
    private long rateCuts;

    /**
     * A reaction point at line rate.
     *
     * @param parameters  the DCQCN set
     * @param lineRateBps the link rate in bit/s (&ge; the set's minimum rate)
     * @throws IllegalArgumentException if the line rate is below the minimum rate
     */
    public DcqcnReactionPoint(DcqcnParameters parameters, long lineRateBps) {
        if (lineRateBps < parameters.minRateBps()) {
            throw new IllegalArgumentException("line rate " + lineRateBps + " bit/s is below min_rate "
                    + parameters.minRateBps());
        }
        this.p = parameters;
        this.paper = parameters.variant() == DcqcnParameters.Variant.PAPER;
        this.lineRateBps = lineRateBps;
        this.rc = lineRateBps;
        this.rt = lineRateBps;
        this.alpha = parameters.initialAlpha();
    }

    /** The current rate RC in bit/s, after running the timers up to {@code nowNs}. */
    public double rateBps(long nowNs) {
        advance(nowNs);
        return rc;
    }

    /** The current rate RC in bit/s as of the last call (runs no timer). */
    public double currentRateBps() {
        return rc;
    }

    /** The target rate RT in bit/s as of the last call. */
    public double targetRateBps() {
        return rt;
    }

    /** α as of the last call, in [0, 1]. */
    public double alpha() {
        return alpha;
    }

    /** CNPs taken (mlx5's {@code rp_cnp_handled}). */
    public long cnpHandled() {
        return cnpHandled;
    }

    /** Rate cuts made (one per CNP in the paper variant, at most one per decrease period in the firmware's). */
    public long rateCuts() {
        return rateCuts;
    }

    /** The parameters. */
    public DcqcnParameters parameters() {
        return p;
    }

    /** When the next timer expires, in ns, or {@link Long#MAX_VALUE} when none runs. */
    public long nextDeadlineNs() {
        return Math.min(decreaseDeadline, Math.min(alphaDeadline, increaseDeadline));
    }

    /**
     * The time in picoseconds that {@code bytes} take at the current rate (the pacing gap), at
     * least 1.
     */
    public long transmitTimePs(int bytes) {
        return Math.max(1, (long) Math.ceil(bytes * 8e12 / rc));
    }

    /** A CNP arrived at {@code nowNs}. */
    public void onCnp(long nowNs) {
        advance(nowNs);
        cnpHandled++;
        if (paper) {
            boolean first = !active;
            active = true;
            cut(first);
            alpha = (1 - p.g()) * alpha + p.g();
            alphaDeadline = nowNs + p.alphaPeriodNs();
            increaseDeadline = nowNs + p.increaseTimerNs();
        } else if (!active) {
            active = true;
            alpha = p.initialAlpha();
            alphaCnpArrived = true;
            cut(true);
            alphaDeadline = nowNs + p.alphaPeriodNs();
            decreaseDeadline = nowNs + p.rateDecreasePeriodNs();
            increaseDeadline = nowNs + p.increaseTimerNs();
        } else {
            alphaCnpArrived = true;
            decreasePending = true;
        }
    }

    /** {@code bytes} went out at {@code nowNs}: feeds the byte counter (after the first CNP). */
    public void onSent(long nowNs, int bytes) {
        advance(nowNs);
        if (!active || p.byteCounterBytes() == 0) {
            return;
        }
        bytesSinceStep += bytes;
        while (bytesSinceStep >= p.byteCounterBytes()) {
            bytesSinceStep -= p.byteCounterBytes();
            byteStage++;
            increase();
        }
    }

    /** Runs every timer that expires at or before {@code nowNs}. */
    public void advance(long nowNs) {
        if (nowNs < lastNs) {
            throw new IllegalArgumentException("time went backwards: " + nowNs + " < " + lastNs);
        }
        lastNs = nowNs;
        while (true) {
            long d = decreaseDeadline;
            long a = alphaDeadline;
            long i = increaseDeadline;
            if (d <= nowNs && d <= a && d <= i) {
                decreaseDeadline = d + p.rateDecreasePeriodNs();
                if (decreasePending) {
                    decreasePending = false;
                    cut(false);
                    increaseDeadline = d + p.increaseTimerNs();
                }
            } else if (a <= nowNs && a <= i) {
                alphaDeadline = a + p.alphaPeriodNs();
                if (paper || !alphaCnpArrived) {
                    alpha = (1 - p.g()) * alpha;
                } else {
                    alpha = (1 - p.g()) * alpha + p.g();
                }
                alphaCnpArrived = false;
            } else if (i <= nowNs) {
                increaseDeadline = i + p.increaseTimerNs();
                timerStage++;
                increase();
            } else {
                return;
            }
        }
    }

    private void cut(boolean first) {
        if (p.clampTargetRate() || (p.clampAfterTimeIncrease() && (timerStage > 0 || byteStage > 0))) {
            rt = rc;
        }
        if (first && p.rateOnFirstCnpBps() > 0) {
            rc = Math.min(rc, p.rateOnFirstCnpBps());
        } else {
            rc = rc * (1 - Math.min(alpha / 2, p.maxDecreaseFraction()));
        }
        rc = Math.max(rc, p.minRateBps());
        rateCuts++;
        timerStage = 0;
        byteStage = 0;
        bytesSinceStep = 0;
    }

    private void increase() {
        int f = p.fastRecoverySteps();
        int hi = Math.max(timerStage, byteStage);
        if (hi > f) {
            if (paper) {
                int lo = Math.min(timerStage, byteStage);
                rt += lo > f ? (lo - f) * (double) p.rateHaiBps() : p.rateAiBps();
            } else {
                rt += hi == f + 1 ? p.rateAiBps() : p.rateHaiBps();
            }
            rt = Math.min(rt, lineRateBps);
        }
        rc = Math.min((rt + rc) / 2, lineRateBps);
    }
}
