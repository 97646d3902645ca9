package org.jrdma.verbs.ext;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.Gid;

/**
 * QP1 of a port, the General Services Interface (IBTA Vol 1 §13.5): sending and receiving
 * management datagrams (MADs of {@value #MAD_SIZE} bytes, common header of §13.4.2) the way
 * Linux's MAD layer ({@code ib_mad}) offers them to kernel clients such as the IB CM. Reached
 * through {@link org.jrdma.verbs.Context#extension(Class)}; a software RoCE v2 device offers it,
 * a provider without a QP1 of its own (iWARP, or a native device whose QP1 the kernel owns) does not.
 *
 * <p>A MAD of a management class and version that no agent has registered is answered by the
 * provider as Linux answers it: a GetResp (method | 0x80) with status 0x000C "unsupported
 * class/version" for a Get/Set, nothing for a response or a Send. Malformed MADs (short, wrong
 * base version, bad Q_Key or P_Key) are dropped and counted, never delivered.
 *
 * <p>Threads: {@link MadHandler} methods run on the provider's receive/timer thread and must not
 * block (hand the MAD to your own thread); {@link MadAgent} methods may be called from any thread.
 */
public interface ManagementDatagrams {
    /** The size of every GMP on QP1, header included (IBTA Vol 1 §13.4.2): 256 bytes. */
    int MAD_SIZE = 256;
    /** QP1's Q_Key (IBTA Vol 1 §13.5.3): {@code 0x80010000}. */
    int GSI_QKEY = 0x80010000;

    /**
     * Registers an agent for one management class and class version on a port, as
     * {@code ib_register_mad_agent}: MADs of that class and version arriving on QP1 go to
     * {@code handler}.
     *
     * @param portNum the port (1)
     * @param mgmtClass management class (e.g. 0x07 for the CM)
     * @param classVersion class version (2 for the CM)
     * @throws org.jrdma.verbs.VerbsException EINVAL for a bad port or class; EBUSY when an agent
     *         already serves the class and version in this process, or when QP1 of the device
     *         belongs to another process (the message names which)
     */
    MadAgent register(int portNum, int mgmtClass, int classVersion, MadHandler handler);

    /**
     * Where a MAD came from, or where to send one: the peer's GID (its IP address on RoCE v2),
     * its QPN (1 for its GSI), the Q_Key to use ({@link #GSI_QKEY} for QP1), the P_Key index, and
     * the GRH fields (flow label 20 bits, traffic class, hop limit).
     */
    record MadAddress(Gid gid, int remoteQpn, int remoteQkey, int pkeyIndex, int flowLabel,
                      int trafficClass, int hopLimit) {
        /** The address of a peer's QP1 with default GRH fields (flow label 0, class 0, hop limit 64). */
        public static MadAddress gsi(Gid gid) {
            return new MadAddress(gid, 1, GSI_QKEY, 0, 0, 0, 64);
        }
    }

    /** Receives an agent's MADs and the outcome of its requests. */
    interface MadHandler {
        /**
         * A MAD of the agent's class arrived. {@code mad} ({@value #MAD_SIZE} bytes) is valid only
         * during the call: copy what you keep.
         */
        void received(MadAddress from, MemorySegment mad);

        /**
         * A MAD sent with a timeout got no answer after its retries ({@code IB_WC_RESP_TIMEOUT_ERR}
         * in ib_mad), or could not be sent. Not called for a request that was cancelled.
         *
         * @param transactionId the TID of the MAD (its header's 64-bit transaction ID)
         */
        default void sendFailed(long transactionId) {
        }
    }

    /** A registered agent; closing it unregisters it and cancels its outstanding sends. */
    interface MadAgent extends AutoCloseable {
        /**
         * Sends a MAD from QP1. With {@code timeoutMs > 0} the MAD is a request: it is sent again
         * (same TID) every {@code timeoutMs} up to {@code retries} times until {@link #cancel}
         * is called or a response method (method bit 0x80) with the same TID arrives, else
         * {@link MadHandler#sendFailed} is called.
         *
         * @param mad {@value #MAD_SIZE} bytes, copied before the call returns
         * @throws org.jrdma.verbs.VerbsException EINVAL for a short MAD or bad address
         */
        void send(MadAddress to, MemorySegment mad, int timeoutMs, int retries);

        /** Stops resending the request with this TID ({@code ib_cancel_mad}); nothing if none. */
        void cancel(long transactionId);

        /** Gives the request with this TID a new timeout from now ({@code ib_modify_mad}, for MRA). */
        void modify(long transactionId, int timeoutMs);

        @Override
        void close();
    }
}
