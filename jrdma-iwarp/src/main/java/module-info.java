/**
 * Software iWARP (RDMAP RFC 5040, DDP RFC 5041, MPA RFC 5044/6581 over TCP), modelled on Linux siw:
 * devices {@code jsiw0}, {@code jsiw1}, ... of transport type IWARP under the verbs API, their
 * connections made through the connection manager's transport SPI ({@code org.jrdma.cm.spi}).
 */
module org.jrdma.iwarp {
    requires transitive org.jrdma.soft;
    requires org.jrdma.cm;
    requires org.jrdma.wire;
    requires org.slf4j;
    exports org.jrdma.iwarp;
    provides org.jrdma.verbs.spi.Provider with org.jrdma.iwarp.SiwProvider;
    provides org.jrdma.cm.spi.CmTransportProvider with org.jrdma.iwarp.transport.SiwCmProvider;
}
