package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.CmEvent}: the connection manager queued an event for the application (rdma_cm(7)). */
@Name(JrdmaEvents.CM_EVENT)
@Label("CM Event")
@Category("jrdma")
@Description("The connection manager put an event on an ID's event channel (rdma_get_cm_event(3)): ADDR_RESOLVED, CONNECT_REQUEST, ESTABLISHED, REJECTED, DISCONNECTED, TIMEWAIT_EXIT, ...")
@StackTrace(false)
final class CmEventRecord extends jdk.jfr.Event {
    @Label("Event Type")
    @Description("The rdma_cm_event_type without RDMA_CM_EVENT_")
    String eventType;

    @Label("Status")
    @Description("0 on success; for REJECTED the IB CM reject reason (28 consumer reject, 8 nobody listens); for errors -errno (-110 ETIMEDOUT)")
    int status;

    @Label("Device")
    @Description("The device the ID is bound to, empty when none yet")
    String device;

    @Label("Port Space")
    @Description("TCP (RC) or UDP (UD)")
    String portSpace;

    @Label("QPN")
    @Description("The ID's QP number, 24 bits; 0 when it has no QP")
    @Unsigned
    int qpNum;

    @Label("Local Address")
    @Description("The ID's bound IP address, empty when unbound")
    String localAddress;

    @Label("Local Port")
    @Description("The ID's bound rdma_cm port (the TCP/UDP-style port number of the address), 0 when unbound")
    int localPort;

    @Label("Peer Address")
    @Description("The peer's IP address, empty when none")
    String peerAddress;

    @Label("Peer Port")
    @Description("The peer's rdma_cm port, 0 when none")
    int peerPort;
}
