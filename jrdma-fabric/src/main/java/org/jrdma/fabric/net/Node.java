package org.jrdma.fabric.net;

/** A host (its NIC) or a switch, as its ports see it. */
interface Node {
    /** The node id (hosts and switches in scenario order). */
    int id();

    /** HPCC's node type: 0 host, 1 switch. */
    int nodeType();

    /** A packet arrived (not lost) on {@code in}. */
    void receive(Port in, Packet p);

    /** The next packet {@code out} is to send now, or null (the node kicks the port when it has one). */
    Packet next(Port out);
}
