package org.jrdma.examples.server;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.verbs.VerbsException;

/**
 * The accept scaffolding of the examples' RDMA servers (the key-value store's and the RPC
 * framework's): a {@code NAME-accept} thread accepts connections on a listener (each accept carrying
 * the server's private data), and a {@code NAME-conn} thread per connection runs the server's
 * {@code serve} on its endpoint, which is closed when {@code serve} returns. {@link #next} is the
 * request loop's wait for the next message.
 *
 * <p>Threads: {@link #close} from any thread; {@link #next} from a connection thread.
 */
public final class ConnectionThreads implements AutoCloseable {
    private final EndpointListener listener;
    private final byte[] privateData;
    private final String name;
    private final CopyOnWriteArrayList<Endpoint> connections = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Thread> servers = new CopyOnWriteArrayList<>();
    private Thread acceptor;
    private volatile boolean closed;

    /** For {@code listener}, whose accepts carry {@code privateData} (may be null); threads named after {@code name}. */
    public ConnectionThreads(EndpointListener listener, byte[] privateData, String name) {
        this.listener = listener;
        this.privateData = privateData;
        this.name = name;
    }

    /** Starts accepting; {@code serve} runs in a connection's own thread, which then closes the endpoint. Once. */
    public synchronized void start(Consumer<Endpoint> serve) {
        if (acceptor != null) {
            throw new IllegalStateException("started already");
        }
        acceptor = Thread.ofPlatform().daemon().name(name + "-accept").start(() -> acceptLoop(serve));
    }

    private void acceptLoop(Consumer<Endpoint> serve) {
        while (!closed) {
            Endpoint ep;
            try {
                ep = listener.accept(Duration.ofMillis(200), privateData);
            } catch (VerbsException e) {
                continue;                           // no request within 200 ms, or the listener closed: look at closed again
            }
            connections.add(ep);
            servers.add(Thread.ofPlatform().daemon().name(name + "-conn").start(() -> {
                try {
                    serve.accept(ep);
                } catch (RuntimeException e) {
                    // the client went away
                } finally {
                    connections.remove(ep);
                    ep.close();
                }
            }));
        }
    }

    /**
     * The connection's next message, waiting in steps of a second while the server is open and the
     * endpoint connected; null once either is over (the connection ended: {@code serve} should return).
     */
    public Received next(Endpoint ep) {
        while (!closed && ep.isConnected()) {
            try {
                return ep.receive(Duration.ofSeconds(1)).join();
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof TimeoutException)) {
                    return null;
                }
            }
        }
        return null;
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops accepting (closes the listener), closes every connection's endpoint and waits up to 2 s
     * for each thread (a connection thread returns as its endpoint fails).
     */
    @Override
    public void close() {
        closed = true;
        listener.close();
        Thread a;
        synchronized (this) {
            a = acceptor;
        }
        join(a);
        for (Endpoint ep : connections) {
            ep.close();
        }
        for (Thread t : servers) {
            join(t);
        }
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
