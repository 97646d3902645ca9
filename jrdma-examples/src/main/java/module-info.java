/**
 * Example applications over {@code org.jrdma.app}, each beside the same application over TCP (NIO):
 * {@code org.jrdma.examples.kv}, a key-value store whose GETs are one-sided RDMA READs of the
 * server's hash table with a version check against torn reads (Pilaf/FaRM style).
 */
module org.jrdma.examples {
    requires org.jrdma.app;
    requires HdrHistogram;
    exports org.jrdma.examples.kv;
}
