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
 * <p>Routing, as Linux's {@code find_mad_agent}: a response (method bit 0x80) goes to the agent whose
 * outstanding request (sent with a timeout) has its TID and class and was sent to the response's
 * source, and ends that request's retries; a response matching none is dropped and counted
 * ({@code gsi_drop_unsolicited}). A request goes to the agent registered for its class, class
 * version and method. A request no agent serves is answered by the provider as Linux answers it
 * (and as {@code host-mad-ping.pcap} in the lab's captures shows): a Get or Set with a GetResp
 * (method 0x81), the MAD otherwise unchanged, status 0x000C ("unsupported method/attribute
 * combination", {@code IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB}); any other method is
 * dropped and counted ({@code gsi_drop_no_agent}). Malformed MADs (not a UD SEND Only, not 256
 * bytes, wrong base version, a Q_Key other than {@link #GSI_QKEY}, a foreign P_Key, a subnet
 * management class, a CM MAD other than ClassPortInfo whose method is not Send) are dropped and
 * counted by reason ({@code gsi_drop_*} in the device's {@link HardwareCounters}), never delivered.
 *
 * <p>Threads: {@link MadHandler} methods run on the thread that receives for the device (its I/O
 * thread, or an application thread polling one of its CQs) or, for
 * {@link MadHandler#sendFailed}, on its I/O thread; they must not block (hand the MAD to your own
 * thread). {@link MadAgent} methods may be called from any thread, handlers included.
 */
public interface ManagementDatagrams {
    /** The size of every GMP on QP1, header included (IBTA Vol 1 §13.4.2): 256 bytes. */
    int MAD_SIZE = 256;
    /** QP1's Q_Key (IBTA Vol 1 §13.5.3): {@code 0x80010000}. */
    int GSI_QKEY = 0x80010000;

    /**
     * Registers an agent for one management class and class version on a port, as
     * {@code ib_register_mad_agent}: requests of that class and version with one of
     * {@code methods} (or of any method when none is given) arriving on QP1 go to {@code handler},
     * and so do the responses to the agent's own requests. An agent of the CM (class 0x07,
     * version 2) that registers only {@code 0x03} (Send), as Linux's {@code ib_cm} does, leaves a
     * Get(ClassPortInfo) to the provider's unsupported answer, exactly as Linux.
     *
     * @param portNum the port (1)
     * @param mgmtClass management class, 0x02..0xFF except 0x81 (e.g. 0x07 for the CM); 0x01 and
     *        0x81 are subnet management, QP0's
     * @param classVersion class version, 0..255 (2 for the CM)
     * @param methods the request methods to receive, 0x00..0x7F each (e.g. 0x03 Send); none = all
     * @throws org.jrdma.verbs.VerbsException EINVAL for a bad port, class or method; EBUSY when an
     *         agent of this process already serves the class and version for one of the methods, or
     *         when QP1 of the device belongs to another process (the message names which)
     */
    MadAgent register(int portNum, int mgmtClass, int classVersion, MadHandler handler, int... methods);

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
         * A MAD sent with a timeout was neither answered (a response with its TID) nor cancelled
         * before its last retry timed out ({@code IB_WC_RESP_TIMEOUT_ERR} in ib_mad). Not called for
         * a request that was cancelled or answered.
         *
         * @param transactionId the TID of the MAD (its header's 64-bit transaction ID)
         */
        default void sendFailed(long transactionId) {
        }
    }

    /** A registered agent; closing it unregisters it and cancels its outstanding sends. */
    interface MadAgent extends AutoCloseable {
        /**
         * Sends a MAD from QP1 (a UD SEND Only with the MAD as payload, from the UDP source port rxe
         * uses for QP1). With {@code timeoutMs > 0} the MAD is a request: it is sent again (same TID,
         * same bytes) each time {@code timeoutMs} pass without an answer, up to {@code retries}
         * times, until {@link #cancel} is called or a response (method bit 0x80) with the same TID
         * arrives, else {@link MadHandler#sendFailed} is called. Several outstanding requests may
         * share a TID (e.g. the CM's REQ and REP of one connection between two ids of one device);
         * {@link #cancel} and {@link #modify} act on all of this agent's with the TID. The traffic
         * class, flow label and hop limit of {@code to} are not applied (the device's IP defaults:
         * 0, 0, 64, as Linux's QP1 on RoCE).
         *
         * @param mad at least {@value #MAD_SIZE} bytes (the first 256 are sent), copied before the
         *        call returns
         * @param timeoutMs 0 (no answer awaited) or the time per try, ms
         * @param retries resends after the first send, 0.. (ignored without a timeout)
         * @throws org.jrdma.verbs.VerbsException EINVAL for a short MAD, a negative timeout or count,
         *         a GID of the other IP version than the device's or a remote QPN over 24 bits, or a
         *         closed agent; EIO when the device is closed
         */
        void send(MadAddress to, MemorySegment mad, int timeoutMs, int retries);

        /** Stops resending this agent's requests with this TID ({@code ib_cancel_mad}); nothing if none. */
        void cancel(long transactionId);

        /**
         * Gives this agent's requests with this TID a new time per try, counted from now
         * ({@code ib_modify_mad}, for an MRA: the peer's service timeout); {@code timeoutMs} 0
         * cancels them, as ib_mad. Retries left are kept. Nothing if there is none.
         */
        void modify(long transactionId, int timeoutMs);

        @Override
        void close();
    }
}
