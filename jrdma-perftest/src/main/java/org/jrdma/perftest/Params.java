package org.jrdma.perftest;

/**
 * The parameters of one run after perftest's defaults ({@code init_perftest_params}) and
 * dependencies ({@code force_dependecies}, {@code check_link}) are applied. Mutable: the exchange
 * with the peer updates page size, cache line and MTU.
 */
public final class Params {
    /** BW or latency test ({@code TestType tst}). */
    public enum Kind { BW, LAT }

    /** Which side: the server has no address argument. */
    public enum Machine { SERVER, CLIENT }

    /** Transport service ({@code -c}). */
    public enum Connection { RC, UC, UD }

    /** {@code -A}. */
    public enum AtomicType { CMP_AND_SWAP, FETCH_AND_ADD }

    /** Iterations once, all sizes ({@code -a}) or forever ({@code --run_infinitely}). */
    public enum Method { REGULAR, ALL, INFINITELY }

    /** {@code --output}: everything, or one number per result. */
    public enum Output { FULL, BANDWIDTH, MESSAGE_RATE, LATENCY }

    /** perftest's {@code DEF_PORT}. */
    public static final int DEF_PORT = 18515;
    /** {@code MAX_SIZE}: the largest size of {@code -a}, 2^23. */
    public static final long MAX_SIZE = 8388608;
    /** {@code MSG_SIZE_CQ_MOD_LIMIT}: above it CQ moderation is off unless asked for. */
    public static final long MSG_SIZE_CQ_MOD_LIMIT = 8192;
    /** {@code DEF_QKEY}. */
    public static final int DEF_QKEY = 0x11111111;
    /** {@code UD_ADDITION}: the GRH in front of a UD receive. */
    public static final int UD_ADDITION = 40;
    /** {@code MAX_INLINE}: the largest {@code -I} perftest accepts, bytes. */
    public static final int MAX_INLINE = 912;
    /** {@code MAX_INLINE_UD}: the largest inline size of a UD test, bytes; a larger {@code -I} is lowered to it. */
    public static final int MAX_INLINE_UD = 884;
    /** {@code UC_MAX_RX}. */
    public static final int UC_MAX_RX = 16000;
    /** {@code MIN_RNR_TIMER} (code 12 = 0.64 ms). */
    public static final int MIN_RNR_TIMER = 12;

    public String tool;
    public Verb verb;
    public Kind kind;
    public Machine machine;
    public String serverName;
    public int port = DEF_PORT;
    public String ibDev;
    public int ibPort = 1;
    /** -1 until chosen; on Ethernet the best GID (IPv4 first) unless {@code -x}. */
    public int gidIndex = -1;
    public boolean useGidUser;
    public long size;
    public boolean reqSize;
    public long iters;
    /** {@code -m} in bytes, 0 = the port's active MTU. */
    public int mtu;
    /** The path MTU enum (1..5) after the exchange. */
    public int currMtu;
    public boolean duration;
    public int durationSec = 5;
    public int margin = -1;
    public boolean cpuFreqF;
    public boolean reportGbits;
    public Method method = Method.REGULAR;
    public Connection connection = Connection.RC;
    public int numQps = 1;
    public int txDepth;
    public int rxDepth;
    /** {@code --use-srq} (SEND tests): the receiving side's QPs share one SRQ of {@code rxDepth} WRs. */
    public boolean useSrq;
    /** -1 = default. */
    public int inlineSize = -1;
    public int postList = 1;
    public boolean useEvent;
    public int cqMod = 100;
    /** {@link #resolve()} lowered {@code -I} to {@link #MAX_INLINE_UD} (perftest says so when the test starts). */
    public boolean inlineLoweredForUd;
    public boolean reqCqMod;
    public Output output = Output.FULL;
    public boolean performWarmUp;
    /** {@code --jit_warm_up} (jrdma): ms of {@link JitWarmUp} before the test; 0 = none. */
    public int jitWarmUpMillis = JitWarmUp.DEFAULT_MILLIS;
    public AtomicType atomicType = AtomicType.FETCH_AND_ADD;
    /** {@code -o}: 0 = the device maximum. */
    public int outReads;
    public boolean noPeak;
    /** PCIe relaxed ordering: off in ib_write_lat ({@code disable_pcir}). */
    public boolean disablePcir;
    /** {@code cycle_buffer}: the page size, max of both sides. */
    public int cycleBuffer = 4096;
    public int cacheLineSize = 64;
    public String transport = "IB";
    /** {@code --plot}: the chart file (.svg or .png) of the results, or null. */
    public String plotFile;
    /** {@code --stats-file}: where the device counters go ({@link StatsFile}), or null for the default. */
    public String statsFile;
    public String linkType = "Ethernet";
    /**
     * {@code -R} (perftest's {@code work_rdma_cm}): the test's QPs are connected through the CM
     * ({@link CmQps}), and the exchange travels over the CM too.
     */
    public boolean rdmaCm;
    /** {@code -z} (perftest's {@code use_rdma_cm} alone): only the exchange travels over the CM ({@link CmLink}). */
    public boolean commRdmaCmOnly;

    /** True when the exchange runs over the CM ({@code -R} or {@code -z}: perftest's {@code use_rdma_cm}). */
    public boolean commRdmaCm() {
        return rdmaCm || commRdmaCmOnly;
    }

    /** True when the header prints, the address lines print and so on. */
    public boolean full() {
        return output == Output.FULL;
    }

    /** Defaults of {@code init_perftest_params} for this verb and kind. */
    public static Params defaults(String tool, Verb verb, Kind kind) {
        Params p = new Params();
        p.tool = tool;
        p.verb = verb;
        p.kind = kind;
        p.size = kind == Kind.BW ? 65536 : 2;
        p.txDepth = kind == Kind.BW ? 128 : 1;
        p.rxDepth = verb == Verb.SEND ? 512 : 1;
        p.iters = kind == Kind.BW && verb == Verb.WRITE ? 5000 : 1000;
        if (verb == Verb.ATOMIC) {
            p.size = 8;
        }
        p.disablePcir = verb == Verb.WRITE && kind == Kind.LAT;
        return p;
    }

    /**
     * {@code force_dependecies}: derived values and the combinations perftest refuses.
     *
     * @throws IllegalArgumentException with a one-line reason for a refused combination
     */
    public void resolve() {
        machine = serverName != null ? Machine.CLIENT : Machine.SERVER;
        if (!duration) {
            if (txDepth > iters) {
                txDepth = (int) iters;
            }
            if (verb == Verb.SEND && rxDepth > iters) {
                rxDepth = (int) iters;
            }
            if ((connection == Connection.UD || connection == Connection.UC) && rxDepth == 512) {
                rxDepth = (int) Math.min(iters, UC_MAX_RX);
            }
        }
        if (size > MSG_SIZE_CQ_MOD_LIMIT && connection != Connection.UD && method != Method.ALL && !useEvent
                && !reqCqMod) {
            cqMod = 1;
        }
        if (cqMod > txDepth) {
            cqMod = txDepth;
        }
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            inlineSize = 0;
        }
        if (connection == Connection.UD && inlineSize > MAX_INLINE_UD) {
            inlineSize = MAX_INLINE_UD;
            inlineLoweredForUd = true;
        }
        if (method == Method.ALL) {
            if (verb == Verb.ATOMIC) {
                throw new IllegalArgumentException("message size cannot be changed for atomic tests (-a)");
            }
            size = MAX_SIZE;
        }
        if (verb == Verb.ATOMIC && size != 8) {
            throw new IllegalArgumentException("message size cannot be changed for atomic tests");
        }
        if (postList > 1) {
            if (kind != Kind.BW) {
                throw new IllegalArgumentException("post list (-l) is supported in BW tests only");
            }
            if (!duration && iters % postList != 0) {
                throw new IllegalArgumentException("number of iterations must be a multiple of the post list size");
            }
            if (!reqCqMod) {
                cqMod = postList;
            } else if (postList % cqMod != 0) {
                throw new IllegalArgumentException("post list size must be a multiple of CQ moderation");
            }
        }
        if (duration) {
            noPeak = true;
            if (useEvent) {
                throw new IllegalArgumentException("duration mode (-D) does not work with events (-e)");
            }
            if (method == Method.ALL) {
                throw new IllegalArgumentException("duration mode (-D) does not support running all sizes (-a)");
            }
        }
        if (verb == Verb.SEND && kind == Kind.BW && machine == Machine.SERVER) {
            noPeak = true;
        }
        if (method == Method.INFINITELY) {
            noPeak = true;
            duration = true;
            if (useEvent) {
                throw new IllegalArgumentException("--run_infinitely does not support events (-e)");
            }
            if (kind == Kind.LAT) {
                throw new IllegalArgumentException("--run_infinitely exists only in BW tests");
            }
        }
        if (output != Output.FULL) {
            if (kind == Kind.BW && output != Output.BANDWIDTH && output != Output.MESSAGE_RATE) {
                throw new IllegalArgumentException("--output for BW tests can be: bandwidth, message_rate");
            }
            if (kind == Kind.LAT && output != Output.LATENCY) {
                throw new IllegalArgumentException("--output for latency tests can be: latency");
            }
        }
        if (verb == Verb.SEND && rxDepth % 2 == 1 && method == Method.REGULAR) {
            rxDepth += 1; // perftest's "WA for a bug when rx_depth is odd in SEND"
        }
        if (!duration && iters > 20000 && kind == Kind.BW) {
            noPeak = true;
        }
        if (duration && margin == -1) {
            margin = durationSec / 4;
        }
        if (duration && !(durationSec > 2 * margin)) {
            throw new IllegalArgumentException("the duration (-D) must be more than twice the margin");
        }
        if (duration) {
            iters = 0;
        }
    }

    /** The RTT factor of latency results: 1 for READ/atomic (full round trip), else 2 (RTT/2). */
    public int rttFactor() {
        return verb == Verb.READ || verb == Verb.ATOMIC ? 1 : 2;
    }

    /** {@code MTU_SIZE(curr_mtu)}: bytes. */
    public int mtuBytes() {
        return 128 << currMtu;
    }
}
