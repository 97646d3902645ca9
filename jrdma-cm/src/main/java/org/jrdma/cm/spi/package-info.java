/**
 * The connection manager's transport SPI: how a provider makes the connections of its devices
 * behind {@link org.jrdma.cm.CmId} ({@link org.jrdma.cm.spi.CmTransportProvider},
 * {@link org.jrdma.cm.spi.CmTransport}, the ID's view {@link org.jrdma.cm.spi.CmEndpoint}, the CM's
 * thread {@link org.jrdma.cm.spi.CmHost}). Everything here runs under the CM lock, which comes before
 * every provider lock (docs/DESIGN.md); a transport's own threads hand work over with
 * {@link org.jrdma.cm.spi.CmHost#execute}.
 */
package org.jrdma.cm.spi;
