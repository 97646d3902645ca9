package org.jrdma.fabric.scenario;

import java.util.List;
import org.jrdma.congestion.DcqcnParameters;

/**
 * A parsed, checked scenario: the topology, the flows and every parameter of the run, each with its
 * default when the file does not set it (see {@code jrdma-fabric/scenarios/README.md} for the file
 * format). Built by {@link ScenarioParser}; immutable.
 *
 * @param name              the scenario's name
 * @param durationPs        simulated time to run, in ps
 * @param seed              the default seed (the command's {@code --seed} overrides it)
 * @param mtuBytes          payload bytes per data packet (default 1000, HPCC's PACKET_PAYLOAD_SIZE)
 * @param headerBytes       bytes each packet adds on the wire (default 62: Ethernet 14 + IPv4 20 +
 *                          UDP 8 + BTH 12 + ICRC 4 + FCS 4; preamble and gap not modelled)
 * @param nodes             hosts and switches
 * @param links             links
 * @param flows             flows
 * @param routes            static routes that override shortest-path routing at a switch
 * @param buffer            the switches' MMU parameters
 * @param ecn               ECN marking at the switches (null: off)
 * @param pfc               PFC (null: off, the fabric is lossy)
 * @param dcqcn             the NICs' DCQCN set (null: no congestion control, line rate)
 * @param ackInterval       the receiver ACKs every this many packets (default 1, HPCC's L2_ACK_INTERVAL)
 * @param rtoPs             the sender's retransmission timeout in ps (go-back-N from the oldest unacked)
 * @param nackIntervalPs    the least time between two NAKs of one flow (default 500 µs, HPCC's NACK generation interval)
 * @param ccDelayPs         the NIC's congestion-control reaction delay: a CNP acts on the rate this long
 *                          after it arrives (FABRIC-REFERENCE.md §5: 3.1 µs for a ConnectX-5's loop,
 *                          23 µs for Soft-RoCE's; default 0)
 * @param goBack0MessageBytes 0: go-back-N; else go-back-0 (the RoCE NIC of Guo et al. 2016 §4): a NAK or a
 *                          timeout resends from the first byte of the message holding the oldest unacked
 *                          byte, a flow being messages of this size
 * @param samplePs          the interval of rate and queue samples in ps
 * @param eventBudget       the most events the run may take
 * @param memoryBudgetBytes the most heap the run may use
 * @param watchdog          the switches' PFC watchdog (null: off)
 * @param stuck             hosts whose NIC gets stuck (host-originated pause storm)
 * @param transport         the NICs' transport: {@code roce} (RC QPs, go-back-N, DCQCN), {@code tcp}
 *                          (kernel TCP, {@link TcpSpec}) or {@code iwarp} (the same TCP on an RNIC)
 * @param tcp               the TCP model's parameters (transport tcp and iwarp)
 * @param workload          the request/response workload (null: none)
 * @param cpu               the host CPU cost model (the transport's defaults unless the file sets it)
 * @param ib                InfiniBand credit flow control on every link (null: Ethernet)
 * @param scheduler         the switches' egress scheduling of queues 1–7 (default: round-robin, as HPCC)
 * @param hpcc              HPCC congestion control at the NICs, INT at the switches (null: off)
 * @param irn               selective repeat with BDP flow control (IRN) at the NICs (null: go-back-N / go-back-0)
 */
public record Scenario(String name, long durationPs, long seed, int mtuBytes, int headerBytes, List<NodeSpec> nodes,
        List<LinkSpec> links, List<FlowSpec> flows, List<RouteSpec> routes, BufferSpec buffer, EcnSpec ecn, PfcSpec pfc,
        DcqcnParameters dcqcn, int ackInterval, long rtoPs, long nackIntervalPs, long ccDelayPs, long goBack0MessageBytes, long samplePs,
        long eventBudget, long memoryBudgetBytes, WatchdogSpec watchdog, List<StuckSpec> stuck, String transport,
        TcpSpec tcp, WorkloadSpec workload, CpuSpec cpu, IbSpec ib, SchedulerSpec scheduler,
        HpccSpec hpcc, IrnSpec irn) {

    /** This scenario with another duration (&gt; 0, in ps). */
    public Scenario withDuration(long ps) {
        if (ps <= 0) {
            throw new IllegalArgumentException("the duration must be positive: " + ps + " ps");
        }
        return new Scenario(name, ps, seed, mtuBytes, headerBytes, nodes, links, flows, routes, buffer, ecn, pfc, dcqcn,
                ackInterval, rtoPs, nackIntervalPs, ccDelayPs, goBack0MessageBytes, samplePs, eventBudget, memoryBudgetBytes, watchdog, stuck,
                transport, tcp, workload, cpu, ib, scheduler, hpcc, irn);
    }

    /**
     * The PFC watchdog of every switch (SONiC {@code pfcwd}, Juniper, Cisco: FABRIC-REFERENCE.md §4).
     * Every {@code pollPs} it looks at each egress (port, queue 1–7): a queue that is paused by its
     * peer, holds packets and sent nothing since the last poll is stormed; stormed for
     * {@code detectPs} (counted in whole polls), the watchdog acts: {@code drop} flushes the queue,
     * drops what arrives for it and ignores the peer's pauses; {@code forward} ignores the pauses
     * and forwards. It restores the queue once no pause frame has come for {@code restorePs}.
     *
     * @param name          the preset's name ({@code sonic}: 200/200/200 ms, drop; {@code juniper}:
     *                      poll 100 ms, detect 200 ms, restore 200 ms, drop)
     * @param pollPs        the poll interval
     * @param detectPs      the detection time
     * @param restorePs     the restoration time
     * @param drop          drop (true) or forward (false)
     * @param hostPortsOnly watch only ports that face a host (a ToR's server ports), else every port
     */
    public record WatchdogSpec(String name, long pollPs, long detectPs, long restorePs, boolean drop,
            boolean hostPortsOnly) {
    }

    /**
     * A host whose NIC's receive pipeline stops at {@code atPs}: from then on it discards what it
     * receives and sends PFC XOFF on priorities 1–7, refreshed, for ever (Guo et al., SIGCOMM 2016,
     * the NIC pause-frame storm).
     *
     * @param host the host's name
     * @param atPs when it gets stuck
     * @param line the scenario line
     */
    public record StuckSpec(String host, long atPs, int line) {
    }

    /**
     * The switch MMU, as HPCC's {@code SwitchMmu}.
     *
     * @param bufferBytes       the shared buffer per switch
     * @param reserveBytes      guaranteed per (ingress port, queue) (HPCC: 4 KiB)
     * @param resumeOffsetBytes XON when the shared use is this far below the threshold (HPCC: 3 KiB)
     * @param headroomFactor    headroom per port = factor × rate × delay / 8 (HPCC: 3)
     * @param baseShift         the dynamic threshold is free &gt;&gt; shift at the hosts' rate
     *                          (HPCC: 3, α = 1/8), one less per doubling of a port's rate
     */
    public record BufferSpec(long bufferBytes, long reserveBytes, long resumeOffsetBytes, int headroomFactor,
            int baseShift) {
    }

    /**
     * RED/ECN marking at dequeue on the egress bytes of a (port, queue).
     *
     * @param kminBytes below or at this, no mark
     * @param kmaxBytes above this, every packet is marked
     * @param pmax      the marking probability at Kmax, in [0, 1]
     */
    public record EcnSpec(long kminBytes, long kmaxBytes, double pmax) {
    }

    /**
     * Egress scheduling at every switch port. Queue 0 (PFC, CNP, ACK/NAK: the control queue) is always
     * served first; then the {@code strict} queues, the highest number first (IEEE 802.1Q's strict
     * priority selection, priority 7 highest); then the other queues of 1–7 by round-robin or DWRR.
     * A queue paused by PFC is skipped and keeps its deficit.
     *
     * @param dwrr         false: round-robin, one packet per non-empty queue per turn (HPCC's
     *                     {@code BEgressQueue::DoDequeueRR}); true: deficit round robin with weights
     *                     (Shreedhar and Varghese, "Efficient Fair Queuing using Deficit Round Robin",
     *                     SIGCOMM 1995): each turn of a backlogged queue adds {@code weight × quantumBytes}
     *                     to its deficit counter and sends packets while the head fits in it; an empty
     *                     queue's deficit is reset to 0. Backlogged queues then share the port's bytes in
     *                     proportion to their weights (802.1Qaz ETS's bandwidth shares), each within one
     *                     quantum plus one frame of its share over any interval
     * @param weights      the weight of queues 1–7 at index 1–7 (index 0 unused), each in 1..1000;
     *                     ignored for strict queues and by round-robin
     * @param quantumBytes bytes per weight unit per turn; at least one full frame (MTU + header), so
     *                     that every turn of a backlogged queue sends (0: one full frame)
     * @param strict       {@code strict[q]}: queue q (1–7) is strict priority
     */
    public record SchedulerSpec(boolean dwrr, int[] weights, long quantumBytes, boolean[] strict) {
        /** Round-robin over queues 1–7, none strict (HPCC). */
        public static final SchedulerSpec ROUND_ROBIN = new SchedulerSpec(false, new int[] {0, 1, 1, 1, 1, 1, 1, 1}, 0,
                new boolean[8]);
    }

    /**
     * HPCC (Li et al., SIGCOMM 2019, Algorithm 1; the HPCC simulator's {@code CC_MODE 3}).
     *
     * @param eta        the target utilisation η in (0, 1] (HPCC simulator {@code U_TARGET}: 0.95)
     * @param maxStage   additive-increase stages before a multiplicative step ({@code MI_THRESH}:
     *                   0, the project page's value; the paper's 5 was a typo)
     * @param rateAiBps  R_AI in bit/s; W_AI = R_AI × T ({@code RATE_AI}: 50 Mb/s)
     * @param minRateBps the least rate ({@code MIN_RATE}: 100 Mb/s)
     */
    public record HpccSpec(double eta, int maxStage, long rateAiBps, long minRateBps) {
    }

    /**
     * IRN's loss recovery (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018): the
     * receiver keeps out-of-order packets and answers each with a NAK that carries the cumulative
     * acknowledgement and the packet's range (a selective ACK); the sender keeps the selectively
     * acknowledged ranges and, in recovery, resends only the holes below the highest of them, each
     * once per recovery (a timeout starts again from the oldest unacked byte), before new data;
     * BDP flow control caps the bytes beyond the oldest unacked at one bandwidth-delay product
     * (line rate × the flow's base RTT). The timeout is {@code rtoLowPs} while at most {@code n}
     * packets are outstanding, else {@code rtoHighPs}.
     *
     * @param rtoLowPs  the short timeout (IRN: 100 µs [R: FABRIC-REFERENCE §3, not checked])
     * @param rtoHighPs the long timeout (IRN: 320 µs [R])
     * @param n         the outstanding packets up to which the short timeout applies (IRN: 3 [R])
     * @param bdpFc     BDP flow control on
     */
    public record IrnSpec(long rtoLowPs, long rtoHighPs, int n, boolean bdpFc) {
    }

    /**
     * PFC.
     *
     * @param quantaMode false: XOFF/XON (HPCC: paused until resumed); true: 802.1Qbb timed pauses
     *                   of {@code quanta} × 512 bit times, refreshed at half that while congested,
     *                   and XON as a zero-quanta frame
     * @param quanta     the pause time of an XOFF in 512-bit-time quanta (1–65535)
     */
    public record PfcSpec(boolean quantaMode, int quanta) {
    }
}
