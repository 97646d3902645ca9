/** What the software providers (RoCE v2, iWARP) share: PD/MR tables and key checks, queues, CQs, the QP state machine. */
module org.jrdma.soft {
    requires transitive org.jrdma.verbs;
    requires org.agrona;
    exports org.jrdma.soft;
}
