package org.jrdma.perftest;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * perftest's out-of-band exchange over TCP (port 18515 by default), byte-compatible with perftest 4.5
 * ({@code perftest_communication.c}): in every exchange the client writes first and then reads, the
 * server reads and then writes ({@code ctx_xchg_data_ethernet}, {@code ctx_hand_shake}). Each message
 * goes out in one {@code write} because perftest reads it with one {@code read} of the exact size.
 *
 * <p>With {@code -R} or {@code -z} the same messages travel as SENDs over an RC connection of the CM
 * (perftest's {@code ctx_xchg_data_rdma}, {@link CmLink}), in the same order and sizes.
 *
 * <p>The sequence of a run is: {@link #exchangeVersions}, {@link #exchangeSysData} (page size, cache
 * line), {@link #exchangeMtu}, then {@link #handShake} per QP and as barriers, for BW tests
 * {@link #exchangeBwReport}, and {@link #closeConnection}.
 */
public final class OobChannel implements Closeable {
    /** The version jrdma advertises: perftest 4.5's, at least 5.70 (the peer's gate) and below 6.28 (no negotiate_params). */
    public static final String VERSION = "6.06";
    /** {@code MAX_VERSION}: the version travels as 16 raw bytes. */
    public static final int VERSION_BYTES = 16;
    /** The oldest peer version perftest 4.5 accepts ({@code check_version_compatibility}). */
    public static final double MIN_PEER_VERSION = 5.70;

    /**
     * How the exchange's messages travel: perftest's TCP stream, or (rdma_cm mode, {@code -R}/{@code -z})
     * one SEND per message over an RC connection of the CM ({@link CmLink}).
     */
    interface Link extends Closeable {
        /** Sends one message. @throws PerftestException naming {@code what} when the peer is gone */
        void write(byte[] b, String what);

        /** Receives one message of {@code b.length} bytes. @throws PerftestException naming {@code what} */
        void read(byte[] b, String what);

        /** True over the CM: the QP hand-shake is the binary struct, and the close writes no "done". */
        boolean rdmaCm();

        @Override
        void close();
    }

    private final Link link;
    private final boolean client;
    private final String peer;
    /** The {@code gid_index} the rdma_cm hand-shake carries (0 until {@link #destGidIndex(int)}). */
    private int destGidIndex;

    /**
     * A channel over given streams (tests replay capture bytes through it).
     *
     * @param client true for the side that writes first
     * @param peer   how errors name the peer, e.g. "10.77.0.11:18515"
     */
    public OobChannel(InputStream in, OutputStream out, boolean client, Closeable resource, String peer) {
        this(new StreamLink(in, out, resource, peer), client, peer);
    }

    /**
     * A channel over {@code link} (the rdma_cm exchange of {@code -R}/{@code -z}: {@link CmLink}).
     *
     * @param client true for the side that writes first
     */
    OobChannel(Link link, boolean client, String peer) {
        this.link = link;
        this.client = client;
        this.peer = peer;
    }

    /** The {@code gid_index} field of the rdma_cm hand-shake's struct from now on (perftest's {@code my_dest->gid_index}). */
    void destGidIndex(int gidIndex) {
        this.destGidIndex = gidIndex;
    }

    /**
     * The client side: connects to the server.
     *
     * @throws PerftestException naming the address and the cause when the connection fails
     */
    public static OobChannel connect(String host, int port, int timeoutMillis) {
        InetAddress addr;
        try {
            addr = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new PerftestException("cannot resolve server address '" + host + "'");
        }
        String name = host + ":" + port;
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(addr, port), timeoutMillis);
            return new OobChannel(s.getInputStream(), s.getOutputStream(), true, s, name);
        } catch (IOException e) {
            closeQuietly(s);
            throw new PerftestException("cannot connect to " + name + ": " + reason(e));
        }
    }

    /**
     * The server side, step 1: listens on {@code port} (all IPv4 addresses, SO_REUSEADDR, backlog 1,
     * as perftest's {@code ethernet_server_connect}).
     *
     * @throws PerftestException when the port cannot be bound
     */
    public static ServerSocket listen(int port) {
        try {
            ServerSocket ss = new ServerSocket();
            ss.setReuseAddress(true);
            try {
                ss.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port), 1);
            } catch (IOException e) {
                closeQuietly(ss);
                throw new PerftestException("cannot listen on TCP port " + port + ": " + reason(e));
            }
            return ss;
        } catch (IOException e) {
            throw new PerftestException("cannot listen on TCP port " + port + ": " + reason(e));
        }
    }

    /**
     * The server side, step 2: accepts one client and stops listening.
     *
     * @throws PerftestException when accept fails
     */
    public static OobChannel accept(ServerSocket ss) {
        try (ss) {
            Socket s = ss.accept();
            s.setTcpNoDelay(true);
            String name = s.getInetAddress().getHostAddress() + ":" + s.getPort();
            return new OobChannel(s.getInputStream(), s.getOutputStream(), false, s, name);
        } catch (IOException e) {
            throw new PerftestException("accept on TCP port " + ss.getLocalPort() + " failed: " + reason(e));
        }
    }

    /** True on the client (the side that writes first). */
    public boolean isClient() {
        return client;
    }

    /**
     * One {@code ctx_xchg_data}: sends {@code mine} and receives as many bytes.
     *
     * @param what names the step in error messages
     */
    public byte[] exchange(byte[] mine, String what) {
        byte[] theirs = new byte[mine.length];
        if (client) {
            write(mine, what);
            read(theirs, what);
        } else {
            read(theirs, what);
            write(mine, what);
        }
        return theirs;
    }

    /**
     * {@code exchange_versions} and {@code check_version_compatibility}: 16 bytes of NUL-padded ASCII.
     *
     * @return the peer's version text
     * @throws PerftestException when the peer is older than 5.70 or does not send a version
     */
    public String exchangeVersions(String mine) {
        byte[] b = new byte[VERSION_BYTES];
        byte[] ascii = mine.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, b, 0, Math.min(ascii.length, VERSION_BYTES - 1));
        byte[] r = exchange(b, "version exchange");
        int end = 0;
        while (end < r.length && r[end] != 0) {
            end++;
        }
        String version = new String(r, 0, end, StandardCharsets.US_ASCII);
        double v = atof(version);
        if (Double.isNaN(v)) {
            throw new PerftestException("peer " + peer + " does not speak perftest's exchange format (version field '"
                    + printable(version) + "')");
        }
        if (v < MIN_PEER_VERSION) {
            throw new PerftestException("peer " + peer + " runs perftest version " + version
                    + ", older than 5.70, which perftest's exchange does not support");
        }
        return version;
    }

    /**
     * {@code check_sys_data}: page size ({@code cycle_buffer}) then cache line size, each an int32 in
     * network order.
     *
     * @return {peer page size, peer cache line size}
     */
    public int[] exchangeSysData(int pageSize, int cacheLineSize) {
        int rPage = ByteBuffer.wrap(exchange(int32(pageSize), "page size exchange")).getInt();
        int rLine = ByteBuffer.wrap(exchange(int32(cacheLineSize), "cache line exchange")).getInt();
        return new int[] {rPage, rLine};
    }

    /**
     * {@code check_mtu}: the MTU enum (1..5) as ASCII in 2 bytes ("3\0" for 1024).
     *
     * @return the peer's MTU enum value, or 0 when it sent none parseable
     */
    public int exchangeMtu(int mtuEnum) {
        byte[] b = new byte[2];
        b[0] = (byte) ('0' + mtuEnum);
        byte[] r = exchange(b, "MTU exchange");
        int end = r[0] == 0 ? 0 : (r[1] == 0 ? 1 : 2);
        try {
            return Integer.parseInt(new String(r, 0, end, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * {@code ctx_hand_shake}: sends this side's QP data and returns the peer's (over TCP the ASCII
     * message of {@link Dest#encode}, over rdma_cm the struct of {@link Dest#encodeStruct}).
     */
    public Dest handShake(Dest mine) {
        if (link.rdmaCm()) {
            return Dest.decodeStruct(exchange(mine.encodeStruct(destGidIndex), "QP hand-shake"));
        }
        return Dest.decode(exchange(mine.encode(), "QP hand-shake"));
    }

    /**
     * {@code xchg_bw_reports} with a peer of version ≥5.33: size and iterations as 64-bit and then
     * bw_peak, bw_avg and msgRate as doubles, all in network byte order, each field a separate exchange.
     */
    public BwReport exchangeBwReport(BwReport mine) {
        long size = ByteBuffer.wrap(exchange(int64(mine.size()), "report exchange")).getLong();
        long iters = ByteBuffer.wrap(exchange(int64(mine.iters()), "report exchange")).getLong();
        double peak = ByteBuffer.wrap(exchange(dbl(mine.bwPeak()), "report exchange")).getDouble();
        double avg = ByteBuffer.wrap(exchange(dbl(mine.bwAvg()), "report exchange")).getDouble();
        double rate = ByteBuffer.wrap(exchange(dbl(mine.msgRate()), "report exchange")).getDouble();
        return new BwReport(size, iters, peak, avg, rate);
    }

    /**
     * {@code ctx_close_connection}: a last hand-shake, then over TCP "done\0" written (not read: both
     * sides write it) and the socket closed; over rdma_cm only the hand-shake (the connections are
     * torn down afterwards, data QPs first).
     */
    public void closeConnection(Dest mine) {
        handShake(mine);
        if (link.rdmaCm()) {
            return;
        }
        write("done\0".getBytes(StandardCharsets.US_ASCII), "close");
        close();
    }

    @Override
    public void close() {
        link.close();
    }

    private void write(byte[] b, String what) {
        link.write(b, what);
    }

    private void read(byte[] b, String what) {
        link.read(b, what);
    }

    /** perftest's TCP exchange: each message one {@code write}, read back to its exact length. */
    private static final class StreamLink implements Link {
        private final InputStream in;
        private final OutputStream out;
        private final Closeable resource;
        private final String peer;

        StreamLink(InputStream in, OutputStream out, Closeable resource, String peer) {
            this.in = in;
            this.out = out;
            this.resource = resource;
            this.peer = peer;
        }

        @Override
        public void write(byte[] b, String what) {
            try {
                out.write(b);
                out.flush();
            } catch (IOException e) {
                throw new PerftestException("lost the connection to " + peer + " during the " + what + ": " + reason(e));
            }
        }

        @Override
        public void read(byte[] b, String what) {
            try {
                int n = 0;
                while (n < b.length) {
                    int r = in.read(b, n, b.length - n);
                    if (r < 0) {
                        throw new EOFException("peer closed the connection");
                    }
                    n += r;
                }
            } catch (IOException e) {
                throw new PerftestException("lost the connection to " + peer + " during the " + what + ": " + reason(e));
            }
        }

        @Override
        public boolean rdmaCm() {
            return false;
        }

        @Override
        public void close() {
            closeQuietly(resource);
        }
    }

    /** C {@code atof} on a version string: the leading decimal number, or NaN when there is none. */
    static double atof(String s) {
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        try {
            return i == 0 ? Double.NaN : Double.parseDouble(s.substring(0, i));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    private static byte[] int64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static byte[] dbl(double v) {
        return ByteBuffer.allocate(8).putDouble(v).array();
    }

    private static String printable(String s) {
        String t = s.replaceAll("[^\\x20-\\x7e]", "?");
        return t.length() > 16 ? t.substring(0, 16) : t;
    }

    static String reason(IOException e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing is best effort
            }
        }
    }
}
