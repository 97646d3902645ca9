/**
 * Example applications over {@code org.jrdma.app}, each beside the same application over TCP (NIO):
 * {@code org.jrdma.examples.kv}, a key-value store whose GETs are one-sided RDMA READs of the
 * server's hash table with a version check against torn reads (Pilaf/FaRM style);
 * {@code org.jrdma.examples.rpc}, request/response RPC over SEND/RECV with credits;
 * {@code org.jrdma.examples.file}, a file transfer by RDMA WRITE into the receiver's ring of chunks,
 * notified by WRITE_WITH_IMM (WRITE then SEND on iWARP), with credits and a SHA-256 check at the end;
 * {@code org.jrdma.examples.warmup}, the latency of a fresh JVM's first READs (cold, AOT cache, warm-up helper).
 */
module org.jrdma.examples {
    requires org.jrdma.app;
    requires HdrHistogram;
    requires jdk.management;
    requires info.picocli;
    exports org.jrdma.examples.kv;
    exports org.jrdma.examples.file;
    exports org.jrdma.examples.rpc;
    exports org.jrdma.examples.warmup;
    // the benches' command lines: picocli sets their annotated fields
    opens org.jrdma.examples.kv to info.picocli;
    opens org.jrdma.examples.file to info.picocli;
    opens org.jrdma.examples.rpc to info.picocli;
    opens org.jrdma.examples.warmup to info.picocli;
}
