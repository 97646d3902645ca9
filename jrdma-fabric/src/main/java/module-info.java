/**
 * The fabric model behind {@code jrdma fabric}: a deterministic discrete-event simulator
 * ({@code org.jrdma.fabric.sim}: picosecond time, one ordered event list), scenario files
 * ({@code org.jrdma.fabric.scenario}: topologies, flows, parameters, with errors naming the line and
 * field), the network elements ({@code org.jrdma.fabric.net}: links, switches with HPCC's
 * shared-buffer MMU, PFC, ECN at dequeue, NICs with a DCQCN rate limiter per QP and go-back-N) and
 * the command ({@code org.jrdma.fabric.cli}). DCQCN itself is {@code org.jrdma.congestion}, the
 * same classes the RoCE v2 transport uses. No provider, no device.
 */
module org.jrdma.fabric {
    requires org.jrdma.congestion;
    requires info.picocli;
    requires java.management; // the command reports the run's CPU time (events per CPU second)
    requires org.knowm.xchart; // SVG plots (org.jrdma.fabric.plot)
    requires java.desktop;
    exports org.jrdma.fabric.sim;
    exports org.jrdma.fabric.scenario;
    exports org.jrdma.fabric.net;
    exports org.jrdma.fabric.cli;
    exports org.jrdma.fabric.plot;
    opens org.jrdma.fabric.cli to info.picocli;
}
