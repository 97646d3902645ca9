package org.jrdma.rocev2.transport;

/**
 * A packet port whose UDP port 4791 may be shared by several processes (each a member owning a slot
 * of QPNs, {@code org.jrdma.rocev2.DeviceShare}): the port makes sure the datagrams for its own QPNs
 * reach it, and those for QPNs of no member reach one member, which counts them as unknown QPNs.
 * Control path; called by the thread that opens or closes the device and by the device's share
 * keeper thread, one at a time (under the share's group lock or after it read the member list).
 */
public interface SharedPort extends PacketPort {
    /**
     * Applies the member list: {@code slotOfIndex[i]} is the QPN slot ({@code qpn >>> shift}) of
     * the member whose socket has index {@code i} in the SO_REUSEPORT group of the device's address
     * and port 4791 (join order, the last moved into the place of one that left).
     *
     * @param ownSlot this process's slot (one of {@code slotOfIndex})
     * @throws org.jrdma.rocev2.net.NetException if the kernel refuses the program or filter
     */
    void steer(int shift, int[] slotOfIndex, int ownSlot);
}
