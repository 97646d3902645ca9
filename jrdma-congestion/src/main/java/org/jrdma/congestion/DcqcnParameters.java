package org.jrdma.congestion;

import java.util.List;
import java.util.Locale;

/**
 * The parameters of one DCQCN configuration: the reaction point's (RP, the sending NIC) and the
 * notification point's (NP, the receiving NIC) constants. The switch side (ECN marking: Kmin, Kmax,
 * Pmax) is not here; it belongs to the queue that marks.
 *
 * <p>Three named sets ({@link #named(String)}; sources in {@code FABRIC-REFERENCE.md} §1.2):
 * <ul>
 * <li>{@code paper}: Zhu et al., SIGCOMM 2015, as htsim and ns3-rdma implement it: a cut on every
 *     CNP, α decays by {@code (1 − g)} when no CNP came within K = 55 µs, timer T = 55 µs and byte
 *     counter B = 10 MB, F = 5, R_AI 40 Mb/s, R_HAI 200 Mb/s (ns3-rdma's value; the paper's R_HAI
 *     was not read), g = 1/256, initial α 1. The paper gives no minimum rate: 1 Mb/s here.</li>
 * <li>{@code ns3-sample}: ns3-rdma's {@code mix/config.txt}: paper variant with T = 60 µs,
 *     B = 300 MB (in effect off), initial α 0.5, minimum rate 100 Mb/s, R_AI 40 Mb/s, R_HAI
 *     200 Mb/s, target clamped on every cut.</li>
 * <li>{@code nvidia}: the ConnectX-4+ firmware defaults (NVIDIA DOCA "DCQCN CC parameters";
 *     increase side from isekai citing the Mellanox article): α on its own 1 µs timer with g =
 *     5/1024 ({@code dce_tcp_g} 1019), initial α 1023/1024, a cut at most once per 4 µs
 *     ({@code rate_reduce_monitor_period}) by at most 50 % ({@code rpg_min_dec_fac}), minimum rate
 *     1 Mb/s, T = 300 µs, B = 32767 × 64 B, F = 1, R_AI 5 Mb/s, R_HAI 50 Mb/s, target clamped only
 *     after a timer increase ({@code clamp_tgt_rate} 0, {@code clamp_tgt_rate_after_time_inc} 1).
 *     The NP's {@code min_time_between_cnps} was not retrieved: 50 µs (the paper's N) here.</li>
 * </ul>
 *
 * @param name                   the set's name (for reports)
 * @param variant                which reaction-point algorithm ({@link Variant})
 * @param cnpIntervalNs          NP: at most one CNP per flow per this many ns (&gt; 0)
 * @param alphaPeriodNs          RP: the α timer period in ns (&gt; 0)
 * @param g                      RP: the α gain, in (0, 1)
 * @param initialAlpha           RP: α before the first CNP (paper) or set at the first CNP
 *                               (firmware), in [0, 1]
 * @param rateDecreasePeriodNs   RP, firmware variant: the period in ns at which a pending CNP cuts
 *                               the rate (&gt; 0); ignored by the paper variant (a cut per CNP)
 * @param maxDecreaseFraction    RP: the largest share of the rate one cut removes, in (0, 1]
 *                               (0.5: α/2 with α ≤ 1)
 * @param rateOnFirstCnpBps      RP: the rate the first CNP sets, in bit/s, or 0 to cut as usual
 * @param minRateBps             RP: the rate never goes below this, in bit/s (&gt; 0)
 * @param increaseTimerNs        RP: the rate-increase timer period T in ns (&gt; 0)
 * @param byteCounterBytes       RP: the byte counter B in bytes, or 0 for none
 * @param fastRecoverySteps      RP: F, the number of fast-recovery steps (≥ 0)
 * @param rateAiBps              RP: the additive increase R_AI in bit/s (≥ 0)
 * @param rateHaiBps             RP: the hyper increase R_HAI in bit/s (≥ 0)
 * @param clampTargetRate        RP: every cut sets the target rate to the current rate
 * @param clampAfterTimeIncrease RP: a cut sets the target rate to the current rate if an increase
 *                               step came since the previous cut (used when {@code clampTargetRate}
 *                               is false)
 */
public record DcqcnParameters(String name, Variant variant, long cnpIntervalNs, long alphaPeriodNs, double g,
        double initialAlpha, long rateDecreasePeriodNs, double maxDecreaseFraction, long rateOnFirstCnpBps,
        long minRateBps, long increaseTimerNs, long byteCounterBytes, int fastRecoverySteps, long rateAiBps,
        long rateHaiBps, boolean clampTargetRate, boolean clampAfterTimeIncrease) {

    /** The two reaction-point algorithms. */
    public enum Variant {
        /**
         * The paper's: each CNP cuts at once ({@code RT ← RC; RC ← RC(1 − α/2); α ← (1 − g)α + g})
         * and restarts the α timer, which decays α by {@code (1 − g)} per quiet period; increase
         * steps come from the timer and the byte counter; hyper increase adds
         * {@code (min(T, BC) − F)·R_HAI} when both counters exceed F.
         */
        PAPER,
        /**
         * NVIDIA's firmware (and the HPCC simulator's {@code CC_MODE 1}): a CNP sets two bits; α is
         * updated every α period from its bit ({@code α ← (1 − g)α + g} or {@code (1 − g)α}); the
         * rate is cut at most once per decrease period when its bit is set; the first CNP cuts at
         * once. Increase: fast recovery while {@code max(T, BC) ≤ F}, one additive step at F + 1,
         * then a fixed R_HAI per step.
         */
        FIRMWARE
    }

    /** The names {@link #named(String)} knows. */
    public static final List<String> NAMES = List.of("paper", "ns3-sample", "nvidia");

    private static final long US = 1_000;
    private static final long MBPS = 1_000_000;

    /** Checks every range; throws {@link IllegalArgumentException} naming the field. */
    public DcqcnParameters {
        if (name == null || variant == null) {
            throw new IllegalArgumentException("name and variant must be given");
        }
        positive("cnp_interval", cnpIntervalNs);
        positive("alpha_period", alphaPeriodNs);
        positive("rate_decrease_period", rateDecreasePeriodNs);
        positive("min_rate", minRateBps);
        positive("increase_timer", increaseTimerNs);
        notNegative("byte_counter", byteCounterBytes);
        notNegative("rate_on_first_cnp", rateOnFirstCnpBps);
        notNegative("fast_recovery_steps", fastRecoverySteps);
        notNegative("rate_ai", rateAiBps);
        notNegative("rate_hai", rateHaiBps);
        if (!(g > 0 && g < 1)) {
            throw new IllegalArgumentException("g must be in (0, 1): " + g);
        }
        if (!(initialAlpha >= 0 && initialAlpha <= 1)) {
            throw new IllegalArgumentException("initial_alpha must be in [0, 1]: " + initialAlpha);
        }
        if (!(maxDecreaseFraction > 0 && maxDecreaseFraction <= 1)) {
            throw new IllegalArgumentException("max_decrease must be in (0, 1]: " + maxDecreaseFraction);
        }
    }

    private static void positive(String field, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(field + " must be positive: " + v);
        }
    }

    private static void notNegative(String field, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(field + " must not be negative: " + v);
        }
    }

    /** The paper's set (see the class comment). */
    public static DcqcnParameters paper() {
        return new DcqcnParameters("paper", Variant.PAPER, 50 * US, 55 * US, 1.0 / 256, 1.0, 55 * US, 0.5, 0,
                1 * MBPS, 55 * US, 10_000_000, 5, 40 * MBPS, 200 * MBPS, true, false);
    }

    /** ns3-rdma's sample configuration (see the class comment). */
    public static DcqcnParameters ns3Sample() {
        return new DcqcnParameters("ns3-sample", Variant.PAPER, 50 * US, 55 * US, 0.00390625, 0.5, 55 * US, 0.5, 0,
                100 * MBPS, 60 * US, 300_000_000, 5, 40 * MBPS, 200 * MBPS, true, false);
    }

    /** NVIDIA ConnectX-4+ firmware defaults (see the class comment). */
    public static DcqcnParameters nvidia() {
        return new DcqcnParameters("nvidia", Variant.FIRMWARE, 50 * US, 1 * US, 5.0 / 1024, 1023.0 / 1024, 4 * US,
                0.5, 0, 1 * MBPS, 300 * US, 32767L * 64, 1, 5 * MBPS, 50 * MBPS, false, true);
    }

    /**
     * A named set: {@code paper}, {@code ns3-sample} or {@code nvidia} (case-insensitive).
     *
     * @throws IllegalArgumentException for another name (the message lists the known ones)
     */
    public static DcqcnParameters named(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "paper" -> paper();
            case "ns3-sample" -> ns3Sample();
            case "nvidia" -> nvidia();
            default -> throw new IllegalArgumentException("unknown DCQCN parameter set '" + name + "' (known: "
                    + String.join(", ", NAMES) + ")");
        };
    }
}
