package org.jrdma.fabric.scenario;

/**
 * The host CPU cost model of the workload (stated assumptions, not measurements; the defaults
 * per transport are in {@code jrdma-fabric/scenarios/README.md}). A host spends
 * {@code perMessagePs} for each message it sends or receives (system calls or verbs posts, the
 * messenger's thread hand-offs, completion polling), {@code perPacketPs} for each packet its NIC
 * sends or receives that the host stack must touch (TCP: every segment and ACK; RoCE and iWARP:
 * none, the RNIC segments, ACKs and resends), and an OSD {@code osdOpPs} for each read it
 * serves. The message and packet costs of a message also delay it: the sender's before it enters
 * the NIC, the receiver's before the application sees it. CPU share = busy time / (cores ×
 * measured time).
 *
 * @param perMessagePs per message sent or received
 * @param perPacketPs  per packet sent or received through the host stack
 * @param osdOpPs      per read served by an OSD (its own processing, BlueStore's read path)
 * @param cores        cores per host
 */
public record CpuSpec(long perMessagePs, long perPacketPs, long osdOpPs, int cores) {
    /** The default cost model of a transport: tcp (kernel sockets), roce or iwarp (an RNIC). */
    public static CpuSpec defaults(String transport) {
        return switch (transport) {
            case "tcp" -> new CpuSpec(10_000_000, 1_000_000, 40_000_000, 16);
            default -> new CpuSpec(2_000_000, 0, 40_000_000, 16);
        };
    }
}
