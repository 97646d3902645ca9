/**
 * NVMe over Fabrics over RDMA (issue 17; NVM Express over Fabrics 1.1 and its RDMA transport binding):
 * {@code org.jrdma.nvmeof.wire} holds the codecs (the RDMA CM private data records, the 64-byte
 * submission queue entry and 16-byte completion queue entry, keyed SGL data block descriptors, the
 * Fabrics commands, Identify data and the discovery log page), {@code org.jrdma.nvmeof} the host:
 * controllers and namespaces reached through {@code org.jrdma.cm} on any jrdma verbs device;
 * {@code org.jrdma.nvmeof.target} the target (RAM namespaces, one subsystem, the discovery controller);
 * {@code org.jrdma.nvmeof.cli} the {@code jrdma nvme} command (nvme-cli's shape).
 */
module org.jrdma.nvmeof {
    requires transitive org.jrdma.verbs;
    requires org.jrdma.cm;
    requires info.picocli;
    exports org.jrdma.nvmeof;
    exports org.jrdma.nvmeof.wire;
    exports org.jrdma.nvmeof.target;
    exports org.jrdma.nvmeof.cli;
    opens org.jrdma.nvmeof.cli to info.picocli;
}
