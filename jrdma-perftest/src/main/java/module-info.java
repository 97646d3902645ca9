/**
 * perftest-compatible tools (ib_write_bw, ib_write_lat, ...), rc_pingpong, and the jrdma command
 * line. XChart ({@code org.knowm.xchart}) is an automatic module (its jar names itself in the
 * manifest); it draws with AWT, hence {@code java.desktop}.
 */
module org.jrdma.perftest {
    requires org.jrdma.verbs;
    requires org.jrdma.rocev2;
    requires info.picocli;
    requires HdrHistogram;
    requires org.knowm.xchart;
    requires java.desktop;
    requires java.management;
    exports org.jrdma.perftest;
    opens org.jrdma.perftest to info.picocli;
}
