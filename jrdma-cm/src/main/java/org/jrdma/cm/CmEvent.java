package org.jrdma.cm;

/**
 * A CM event, {@code struct rdma_cm_event} ({@code rdma_get_cm_event(3)}): its type, the ID it is
 * for, the status and, for connection events, the peer's connection parameters and private data.
 * Taken from an {@link EventChannel}; {@link #ack()} releases it ({@code rdma_ack_cm_event(3)}).
 *
 * <p>{@link #status()}: 0 on success; for {@link CmEventType#REJECTED} the IB CM reject reason
 * (IBTA Vol 1 §12.6.7.2 table 112: 1 no QP, 8 invalid service ID, 10 stale connection, 28 consumer
 * reject, ...), as librdmacm gives it; for errors {@code -errno} ({@code -ETIMEDOUT} = -110 for
 * {@link CmEventType#UNREACHABLE} and a DREQ that timed out).
 *
 * <p>{@link #privateData()}: for {@link CmEventType#CONNECT_REQUEST} the 56 bytes after the rdma_cm IP
 * header of the REQ, for {@link CmEventType#CONNECT_RESPONSE} and {@link CmEventType#ESTABLISHED}
 * (active side) the REP's 196 bytes, for {@link CmEventType#REJECTED} the REJ's 148 bytes: whole
 * fields as the kernel passes them (librdmacm's {@code private_data_len} is the field length, not
 * what the peer wrote; the rest is zeros). For the SIDR events of a PS_UDP ID: CONNECT_REQUEST the 180
 * bytes after the IP header of the SIDR_REQ, ESTABLISHED and UNREACHABLE the SIDR_REP's 136 bytes
 * (as {@link #udParam()}). Empty for other events.
 *
 * <p>{@link CmEventType#UNREACHABLE} of a PS_UDP ID: status {@code -ETIMEDOUT} when no SIDR_REP came
 * within the CM's retries, else the SIDR_REP's status (IBTA Vol 1 §12.11.2: 1 service ID not
 * supported, i.e. nobody listens; 2 rejected by the service provider, {@code rdma_reject}; 3 no QP;
 * ...), as Linux's {@code cma_sidr_rep_handler} reports it.
 */
public final class CmEvent {
    private final CmEventType type;
    private final CmId id;
    private final CmId listenId;
    private final int status;
    private final byte[] privateData;
    private final ConnParam peerParam;
    private final UdParam udParam;
    private final EventChannel channel;
    private boolean acked;

    CmEvent(EventChannel channel, CmEventType type, CmId id, CmId listenId, int status, byte[] privateData,
            ConnParam peerParam) {
        this(channel, type, id, listenId, status, privateData, peerParam, null);
    }

    /** An event of a UD ID (PS_UDP): its private data is the {@link UdParam}'s. */
    CmEvent(EventChannel channel, CmEventType type, CmId id, CmId listenId, int status, UdParam ud) {
        this(channel, type, id, listenId, status, ud.privateData(), null, ud);
    }

    private CmEvent(EventChannel channel, CmEventType type, CmId id, CmId listenId, int status, byte[] privateData,
                    ConnParam peerParam, UdParam udParam) {
        this.udParam = udParam;
        this.channel = channel;
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData;
        this.peerParam = peerParam;
    }

    public CmEventType type() {
        return type;
    }

    /** The ID the event is for; for {@link CmEventType#CONNECT_REQUEST} the new ID of the connection. */
    public CmId id() {
        return id;
    }

    /** For {@link CmEventType#CONNECT_REQUEST}: the listening ID; else null. */
    public CmId listenId() {
        return listenId;
    }

    /** 0, a reject reason ({@link CmEventType#REJECTED}) or {@code -errno}. */
    public int status() {
        return status;
    }

    /** The reject reason of a {@link CmEventType#REJECTED} event (= {@link #status()}), else 0. */
    public int rejectReason() {
        return type == CmEventType.REJECTED ? status : 0;
    }

    /** The private data of the event (a copy; see the class comment for its length). */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The peer's connection parameters, {@code event->param.conn}: for CONNECT_REQUEST the REQ's
     * (responder resources, initiator depth, flow control, retry and RNR retry counts, SRQ, QPN), for
     * CONNECT_RESPONSE and ESTABLISHED on the active side the REP's; null for other events.
     */
    public ConnParam connParam() {
        return peerParam == null ? null : peerParam.copy();
    }

    /**
     * The UD parameters, {@code event->param.ud}: for the events of a PS_UDP ID that SIDR produces
     * (CONNECT_REQUEST, ESTABLISHED, UNREACHABLE after a SIDR_REP); null for other events. See
     * {@link UdParam} for what each carries.
     */
    public UdParam udParam() {
        return udParam;
    }

    /**
     * Releases the event ({@code rdma_ack_cm_event(3)}). Idempotent. A CONNECT_REQUEST counts against
     * its listener's backlog from its arrival until it is taken from the channel, as in the kernel's ucma.
     */
    public void ack() {
        synchronized (this) {
            if (acked) {
                return;
            }
            acked = true;
        }
        if (channel != null) {
            channel.acked(this);
        }
    }

    /** True once {@link #ack()} was called. */
    public synchronized boolean acked() {
        return acked;
    }

    @Override
    public String toString() {
        return type.eventStr() + " status " + status + (privateData.length > 0 ? " private_data_len " + privateData.length : "");
    }
}
