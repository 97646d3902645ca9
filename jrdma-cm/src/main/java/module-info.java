/**
 * The connection manager: librdmacm's model ({@code rdma_cm(7)}) in Java form. Event channels,
 * CM IDs in port spaces TCP (RC) and UDP (UD), address and route resolution onto the jrdma devices,
 * listen/connect/accept/reject/disconnect, QPs driven INIT/RTR/RTS by the CM. The transport behind
 * it is per device: the IB CM (IBTA Vol 1 chapter 12) over QP1 of a RoCE v2 device
 * ({@code org.jrdma.verbs.ext.ManagementDatagrams}), its messages coded by {@code org.jrdma.mad}.
 */
module org.jrdma.cm {
    requires transitive org.jrdma.verbs;
    requires org.jrdma.wire;
    exports org.jrdma.cm;
    // issue 12 (iwarp): the transport SPI other providers (iWARP) implement
    exports org.jrdma.cm.spi;
    uses org.jrdma.cm.spi.CmTransportProvider;
}
