package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * A packet port that hands everything to another one: the base of the ports that sit between the
 * transport and the network ({@link FaultShim}, {@link PcapTap}), which override what they change.
 * Threads: those of {@link PacketPort}; what a subclass adds states its own rule.
 */
abstract class ForwardingPacketPort implements PacketPort {
    /** The port packets go to and come from. */
    protected final PacketPort inner;

    protected ForwardingPacketPort(PacketPort inner) {
        this.inner = inner;
    }

    @Override
    public int sourcePort(int requested) {
        return inner.sourcePort(requested);
    }

    @Override
    public int nextIpv4Id() {
        return inner.nextIpv4Id();
    }

    @Override
    public boolean writesIpHeader() {
        return inner.writesIpHeader();
    }

    @Override
    public boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        return inner.send(buf, len, dst, srcPort, ipv4Id);
    }

    @Override
    public int nextIpv4Ids(int count) {
        return inner.nextIpv4Ids(count);
    }

    @Override
    public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                         int firstIpv4Id) {
        return inner.sendTrain(buf, segmentSize, count, lastLength, dst, srcPort, firstIpv4Id);
    }

    @Override
    public int receiveBurst(PacketBurst burst) {
        return inner.receiveBurst(burst);
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        return inner.receive(buf, from);
    }

    @Override
    public long lastIpv4IdAndFlags() {
        return inner.lastIpv4IdAndFlags();
    }

    @Override
    public int lastTrafficClass() {
        return inner.lastTrafficClass();
    }

    @Override
    public void awaitReadable(long timeoutNanos) {
        inner.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        inner.wakeup();
    }

    @Override
    public void close() {
        inner.close();
    }
}
