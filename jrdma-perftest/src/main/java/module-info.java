/**
 * perftest-compatible tools (ib_write_bw, ib_write_lat, ...), rc_pingpong, and the jrdma command
 * line. Written against the verbs API alone: the provider (e.g. the software RoCE v2 provider,
 * {@code org.jrdma.rocev2}) is found at run time through {@code uses org.jrdma.verbs.spi.Provider}
 * (service binding puts it in the module graph), and device counters come through
 * {@code Context.extension(HardwareCounters.class)}. {@code org.jrdma.wire} is the provider-free
 * codec module behind {@code jrdma pcap-check}; {@code org.jrdma.cm} is the connection manager behind
 * {@code jrdma rping}; {@code org.jrdma.fabric}, provider-free too, is
 * {@code jrdma fabric} (the fabric model). XChart ({@code org.knowm.xchart}) is an automatic
 * module (its jar names itself in the manifest); it draws with AWT, hence {@code java.desktop}.
 */
module org.jrdma.perftest {
    requires org.jrdma.verbs;
    requires org.jrdma.wire;
    requires org.jrdma.fabric;
    requires org.jrdma.cm;
    // issue 17: jrdma nvme
    requires org.jrdma.nvmeof;
    // issue 15: jrdma examples
    requires org.jrdma.examples;
    requires org.jrdma.app;
    requires info.picocli;
    requires HdrHistogram;
    requires org.knowm.xchart;
    requires java.desktop;
    requires java.management;
    exports org.jrdma.perftest;
    opens org.jrdma.perftest to info.picocli;
}
