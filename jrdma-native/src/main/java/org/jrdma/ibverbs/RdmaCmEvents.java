package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_INITIATOR_DEPTH_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_PRIVATE_DATA_LEN_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_PRIVATE_DATA_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RESPONDER_RESOURCES_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RNR_RETRY_COUNT_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RETRY_COUNT_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.EV_CONN_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.EV_EVENT_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.EV_ID_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.EV_LISTEN_ID_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.EV_STATUS_OFF;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.ConnParam;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.LibRdmacm;
import org.jrdma.ibverbs.bind.RdmaCmLayouts;
import org.jrdma.ibverbs.bind.SockAddr;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's librdmacm event channel and the thread that reads it ({@code jrdma-rdmacm}, a
 * daemon): it blocks in {@code rdma_get_cm_event}, copies what the CM needs out of the event (type,
 * status, IDs, the connection parameters and private data; for a CONNECT_REQUEST the new ID's
 * addresses and device name), acknowledges it at once ({@code rdma_ack_cm_event}, so that
 * {@code rdma_destroy_id} never waits for this thread) and hands the copy to the consumer, which
 * runs it on the CM thread. This thread takes no lock.
 */
final class RdmaCmEvents {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCmEvents.class);
    private static final CmEventType[] TYPES = CmEventType.values();

    /** One event, copied. {@code peer}: the peer's view of the connection parameters (null where the event has none). */
    record Event(long id, long listenId, CmEventType type, int status, byte[] privateData, ConnParam peer,
                 InetSocketAddress local, InetSocketAddress remote, String device) {
    }

    final LibRdmacm lib;
    final MemorySegment channel;

    RdmaCmEvents(LibRdmacm lib, Consumer<Event> consumer) {
        this.lib = lib;
        this.channel = lib.createEventChannel();
        Thread t = new Thread(() -> loop(consumer), "jrdma-rdmacm");
        t.setDaemon(true);
        t.start();
    }

    private void loop(Consumer<Event> consumer) {
        while (true) {
            Event e;
            try {
                MemorySegment ev = lib.getCmEvent(channel);
                try {
                    e = copy(ev);
                } finally {
                    lib.ackCmEvent(ev);
                }
            } catch (RuntimeException ex) {
                LOG.warn("rdma_get_cm_event failed; the librdmacm event thread ends", ex);
                return;
            }
            consumer.accept(e);
        }
    }

    private static Event copy(MemorySegment ev) {
        int t = ev.get(JAVA_INT, EV_EVENT_OFF);
        CmEventType type = t >= 0 && t < TYPES.length ? TYPES[t] : CmEventType.CONNECT_ERROR;
        int status = ev.get(JAVA_INT, EV_STATUS_OFF);
        MemorySegment id = ev.get(ADDRESS, EV_ID_OFF);
        MemorySegment listen = ev.get(ADDRESS, EV_LISTEN_ID_OFF);
        byte[] pd = null;
        ConnParam peer = null;
        if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                || type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED) {
            MemorySegment p = ev.get(ADDRESS, EV_CONN_OFF + CP_PRIVATE_DATA_OFF);
            int len = Byte.toUnsignedInt(ev.get(JAVA_BYTE, EV_CONN_OFF + CP_PRIVATE_DATA_LEN_OFF));
            pd = p.address() == 0 || len == 0 ? new byte[0] : p.reinterpret(len).toArray(JAVA_BYTE);
            peer = new ConnParam()
                    .responderResources(Byte.toUnsignedInt(ev.get(JAVA_BYTE, EV_CONN_OFF + CP_RESPONDER_RESOURCES_OFF)))
                    .initiatorDepth(Byte.toUnsignedInt(ev.get(JAVA_BYTE, EV_CONN_OFF + CP_INITIATOR_DEPTH_OFF)))
                    .retryCount(Byte.toUnsignedInt(ev.get(JAVA_BYTE, EV_CONN_OFF + CP_RETRY_COUNT_OFF)))
                    .rnrRetryCount(Byte.toUnsignedInt(ev.get(JAVA_BYTE, EV_CONN_OFF + CP_RNR_RETRY_COUNT_OFF)));
        }
        InetSocketAddress local = null;
        InetSocketAddress remote = null;
        String device = null;
        if (type == CmEventType.CONNECT_REQUEST) {
            MemorySegment head = id.reinterpret(RdmaCmLayouts.CM_ID_HEAD.byteSize());
            local = SockAddr.read(head.asSlice(RdmaCmLayouts.ID_SRC_OFF, SockAddr.STORAGE));
            remote = SockAddr.read(head.asSlice(RdmaCmLayouts.ID_DST_OFF, SockAddr.STORAGE));
            MemorySegment verbs = head.get(ADDRESS, RdmaCmLayouts.ID_VERBS_OFF);
            if (verbs.address() != 0) {
                MemorySegment dev = verbs.reinterpret(IbvLayouts.CONTEXT.byteSize()).get(ADDRESS, 0)
                        .reinterpret(IbvLayouts.DEVICE.byteSize());
                device = dev.getString(IbvLayouts.DEVICE_NAME_OFF);
            }
        }
        return new Event(id.address(), listen.address(), type, status, pd, peer, local, remote, device);
    }
}
