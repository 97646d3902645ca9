/** perftest-compatible tools (ib_write_bw, ib_write_lat, ...) and the jrdma command line. */
module org.jrdma.perftest {
    requires org.jrdma.verbs;
    requires org.jrdma.rocev2;
    requires info.picocli;
    requires HdrHistogram;
    exports org.jrdma.perftest;
    opens org.jrdma.perftest to info.picocli;
}
