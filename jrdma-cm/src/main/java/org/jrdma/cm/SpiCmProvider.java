package org.jrdma.cm;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ScheduledFuture;
import org.jrdma.cm.spi.CmEndpoint;
import org.jrdma.cm.spi.CmHost;
import org.jrdma.cm.spi.CmTransport;
import org.jrdma.cm.spi.CmTransportProvider;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QueuePair;

/** A {@link CmProvider} made of an SPI {@link CmTransport}: each call hands the ID over as a {@link CmEndpoint}. */
final class SpiCmProvider implements CmProvider {
    private static final CmHost HOST = new CmHost() {
        @Override
        public void execute(Runnable task) {
            CmService.get().execute(task);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
            return CmService.get().schedule(task, delayMs);
        }
    };

    private final CmDevice dev;
    private final CmTransport transport;

    private SpiCmProvider(CmDevice dev, CmTransport transport) {
        this.dev = dev;
        this.transport = transport;
    }

    /** The SPI transport serving {@code device}, or empty (the IB CM's device). Under the CM lock. */
    static Optional<CmProvider> find(CmDevice dev, Device device, Context context) {
        for (CmTransportProvider p : ServiceLoader.load(CmTransportProvider.class, CmTransportProvider.class.getClassLoader())) {
            Optional<CmTransport> t = p.open(device, context, HOST);
            if (t.isPresent()) {
                return Optional.of(new SpiCmProvider(dev, t.get()));
            }
        }
        return Optional.empty();
    }

    private Endpoint ep(CmId id) {
        return new Endpoint(id);
    }

    @Override
    public void listen(CmId listener) {
        transport.listen(ep(listener));
    }

    @Override
    public void unlisten(CmId listener) {
        transport.unlisten(ep(listener));
    }

    @Override
    public void connect(CmId id, ConnParam param) {
        transport.connect(ep(id), param);
    }

    @Override
    public void accept(CmId id, ConnParam param) {
        transport.accept(ep(id), param);
    }

    @Override
    public void reject(CmId id, byte[] privateData) {
        transport.reject(ep(id), privateData);
    }

    @Override
    public void establish(CmId id) {
        transport.establish(ep(id));
    }

    @Override
    public void disconnect(CmId id) {
        transport.disconnect(ep(id));
    }

    @Override
    public void destroy(CmId id) {
        transport.destroy(ep(id));
    }

    @Override
    public int initQpAttr(CmId id, QpAttr attr) {
        return transport.initQpAttr(ep(id), attr);
    }

    @Override
    public int maxConnectPrivateData() {
        return transport.maxConnectPrivateData();
    }

    @Override
    public int maxAcceptPrivateData() {
        return transport.maxAcceptPrivateData();
    }

    @Override
    public int maxRejectPrivateData() {
        return transport.maxRejectPrivateData();
    }

    /** The SPI's view of one ID (under the CM lock). */
    private final class Endpoint implements CmEndpoint {
        private final CmId id;

        Endpoint(CmId id) {
            this.id = id;
        }

        @Override
        public InetSocketAddress localAddress() {
            return id.boundAddress() == null ? null : new InetSocketAddress(id.boundAddress(), id.boundPort());
        }

        @Override
        public InetSocketAddress peerAddress() {
            return id.peer();
        }

        @Override
        public PortSpace portSpace() {
            return id.portSpace();
        }

        @Override
        public QueuePair qp() {
            return id.qpLocked();
        }

        @Override
        public CmEndpoint listener() {
            return id.listener() == null ? null : new Endpoint(id.listener());
        }

        @Override
        public Object connection() {
            return id.connection();
        }

        @Override
        public void connection(Object connection) {
            id.connection(connection);
        }

        @Override
        public boolean alive() {
            return !id.destroyed();
        }

        @Override
        public boolean admitRequest() {
            return id.admitRequest();
        }

        @Override
        public CmEndpoint newRequest(InetSocketAddress local, InetSocketAddress peer) {
            return new Endpoint(CmId.forRequest(id, dev, local.getAddress(), local.getPort(), peer));
        }

        @Override
        public void postRequest(byte[] privateData, ConnParam peerParam) {
            id.postRequest(privateData, peerParam);
        }

        @Override
        public void post(CmEventType type, int status, byte[] privateData, ConnParam peerParam) {
            id.post(type, status, privateData, peerParam);
        }

        @Override
        public void disconnecting() {
            id.state(CmaState.DISCONNECT);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Endpoint e && e.id == id;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(id);
        }

        @Override
        public String toString() {
            return id.toString();
        }
    }
}
