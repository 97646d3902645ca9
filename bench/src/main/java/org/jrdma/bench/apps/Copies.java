package org.jrdma.bench.apps;

/**
 * The copies of the payload bytes one operation makes, counted by reading the code (analytical, not
 * measured): by the application ({@code app}), by the JDK ({@code jdk}: a heap {@code ByteBuffer}
 * or {@code byte[]} through a socket goes through a temporary direct buffer, {@code sun.nio.ch.IOUtil}),
 * by the soft provider in user space ({@code provider}) and by the kernel ({@code kernel}: a
 * {@code sendmsg}/{@code write} copies user memory into socket buffers, a {@code recvmsg}/{@code read}
 * copies it out; loopback hands the same socket buffer from sender to receiver; file I/O through the
 * page cache counts here too). Headers, checksums (ICRC, SHA-256: reads, not copies; the JDK's SHA-256
 * of a direct buffer stages it through a small reused heap array, on the RDMA and TCP file paths alike)
 * and the key of a KV GET are not counted. A direct {@code ByteBuffer} through a socket or file channel
 * costs the JDK no copy. Where each count comes from is listed in {@code docs/apps-table.md}.
 *
 * @param app copies in the example's own code
 * @param jdk copies in the JDK's socket/file channel code
 * @param provider copies in jrxe's or jsiw's user-space code
 * @param kernel copies by the kernel (network and file)
 * @param per what one count is of, e.g. "message", "GET", "call", "chunk"
 */
record Copies(int app, int jdk, int provider, int kernel, String per) {
    /** Raw WRITE over jrxe: Requester gathers MR to packet, sendmmsg, recvmmsg, Responder places packet to MR. */
    static final Copies WRITE_RXE = new Copies(0, 0, 2, 2, "message");
    /** Raw WRITE over jsiw: SiwQp gathers MR to FPDU, write(2), read(2), SiwQp places FPDU to MR. */
    static final Copies WRITE_SIW = new Copies(0, 0, 2, 2, "message");
    /** TcpCeiling: direct buffers, write(2) and read(2). */
    static final Copies TCP_CEILING = new Copies(0, 0, 0, 2, "message");
    /** A KV GET over RDMA READ: responder MR to packet/FPDU, kernel twice, requester into the slot MR, the value out of the slot. */
    static final Copies KV_READ = new Copies(1, 0, 2, 2, "GET");
    /** A KV GET over TCP: KvTable.get, into the heap reply buffer, JDK twice, kernel twice, out of the heap read buffer. */
    static final Copies KV_TCP = new Copies(3, 2, 0, 2, "GET");
    /** An RPC call over SEND/RECV (request + response): per direction encode, into the lease, provider 2, kernel 2, Received.bytes, decode. */
    static final Copies RPC_RDMA = new Copies(8, 0, 4, 4, "call");
    /**
     * An RPC call over the NIO TCP twin (request + response): per direction the frame put into the
     * sender's direct buffer, write(2), read(2) into the receiver's direct buffer, the payload out of it.
     */
    static final Copies RPC_TCP = new Copies(4, 0, 0, 4, "call");
    /** A file chunk over RDMA WRITE: file read into the lease, provider 2, kernel 2, the slot written to the file. */
    static final Copies FILE_RDMA = new Copies(0, 0, 2, 4, "chunk");
    /** A file chunk over the NIO TCP twin: file read into a direct buffer, write(2), read(2) into a direct buffer, file write. */
    static final Copies FILE_TCP = new Copies(0, 0, 0, 4, "chunk");

    /** All copies. */
    int total() {
        return app + jdk + provider + kernel;
    }

    /**
     * The same operation on an RDMA NIC: the provider's and the kernel's network copies are gone (the
     * NIC reads and writes registered memory by DMA); the application's, the JDK's and the file's stay.
     *
     * @param fileCopies the kernel copies of file I/O, which stay
     */
    Copies onHardware(int fileCopies) {
        return new Copies(app, jdk, 0, fileCopies, per);
    }

    /** "total (app+jdk+provider+kernel)". */
    @Override
    public String toString() {
        return total() + " (" + app + "+" + jdk + "+" + provider + "+" + kernel + ")";
    }
}
