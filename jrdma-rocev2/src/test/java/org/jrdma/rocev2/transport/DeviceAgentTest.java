package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.soft.SoftResources;
import org.junit.jupiter.api.Test;

/**
 * The I/O agent's {@code doWork()} without threads or sockets: it takes what the port's
 * {@code receiveBurst} gives, dispatches every packet of the burst (a bad one is counted and the
 * rest goes on), and returns the number of packets as its work count; with nothing there it
 * returns 0. While an application thread polls, it steps back and leaves the port alone.
 */
class DeviceAgentTest {
    private static final int SRC = 0x7f000003, DST = 0x7f000002, SPORT = 0xC001;

    /** A port whose bursts are prepared by the test; counts the calls. */
    private static final class BurstPort implements PacketPort {
        final PacketBuffer[] packets = new PacketBuffer[8];
        final int[] lengths = new int[8];
        int queued, bursts, singles;

        void add(PacketBuffer p, int len) {
            packets[queued] = p;
            lengths[queued++] = len;
        }

        @Override
        public int receiveBurst(PacketBurst burst) {
            bursts++;
            int n = queued;
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(packets[i].seg, 0, burst.buffer(i).seg, 0, lengths[i]);
                burst.from(i).setIpv4(SRC, SPORT);
                burst.set(i, lengths[i], -1);
            }
            queued = 0;
            return n;
        }

        @Override
        public int receive(PacketBuffer buf, SockAddr from) {
            singles++;
            return 0;
        }

        @Override
        public int sourcePort(int requested) {
            return requested;
        }

        @Override
        public int nextIpv4Id() {
            return 0;
        }

        @Override
        public int nextIpv4Ids(int count) {
            return 0;
        }

        @Override
        public boolean writesIpHeader() {
            return false;
        }

        @Override
        public boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
            return true;
        }

        @Override
        public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                             int firstIpv4Id) {
            return count;
        }

        @Override
        public long lastIpv4IdAndFlags() {
            return -1;
        }

        @Override
        public void awaitReadable(long timeoutNanos) {
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
        }
    }

    /** An RC SEND Only of 8 bytes to QPN 0x123456 (no such QP) with a good ICRC, or a bad one. */
    private static PacketBuffer packet(int psn, boolean goodIcrc) {
        PacketBuffer p = PacketBuffer.allocate(64);
        new Bth().wrap(p.seg, 0).opcode(Opcode.RC_SEND_ONLY).tver(0).pkey(0xFFFF).destQpn(0x123456).psn(psn);
        int ic = new Icrc().ipv4(SRC, DST, 0, 0x4000, SPORT, 4791, p, 0, Bth.LENGTH + 8);
        Icrc.write(p, Bth.LENGTH + 8, goodIcrc ? ic : ic ^ 0x100);
        return p;
    }

    @Test
    void theFirstFatalErrorOfTheLoopRunsTheFatalActionOnce() {
        Counters counters = new Counters();
        RxeRecv recv = new RxeRecv(new SoftResources(), counters, 4096, false, DST, 0, 0);
        DeviceAgent agent = new DeviceAgent("t", new BurstPort(), counters, recv, new AckCoalescer(counters), true, true);
        int[] fatal = {0};
        agent.onFatal(() -> fatal[0]++);
        agent.onLoopError(new IllegalStateException("a bad packet"));
        agent.onLoopError(new AssertionError("an assertion"));
        assertEquals(0, fatal[0], "a dropped packet is not a device failure");
        agent.onLoopError(new OutOfMemoryError("test: a fatal VM error in the I/O loop"));
        agent.onLoopError(new LinkageError("test: another"));
        assertEquals(1, fatal[0], "IBV_EVENT_DEVICE_FATAL once");
    }

    @Test
    void doWorkDispatchesAWholeBurstAndCountsTheBadPacketAlone() {
        BurstPort port = new BurstPort();
        Counters counters = new Counters();
        RxeRecv recv = new RxeRecv(new SoftResources(), counters, 4096, false, DST, 0, 0);
        DeviceAgent agent = new DeviceAgent("t", port, counters, recv, new AckCoalescer(counters), true, true);
        agent.onStart();
        for (int i = 0; i < 5; i++) {
            port.add(packet(i, i != 2), Bth.LENGTH + 8 + Icrc.LENGTH);
        }
        assertEquals(5, agent.doWork(), "work count: the packets of the burst");
        assertEquals(1, port.bursts);
        assertEquals(0, port.singles, "the agent receives bursts, not single datagrams");
        assertEquals(1, counters.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC));
        assertEquals(4, counters.get(Counters.RCVD_PKTS));
        assertEquals(4, counters.get(Counters.RCVD_DROP_UNKNOWN_QPN), "the good ones went on to the QPN lookup");
        assertEquals(0, agent.doWork(), "nothing there: no work");

        // an application thread polls: the agent leaves the port to it until a round passes without a poll
        agent.progress();
        int before = port.bursts;
        assertEquals(0, agent.doWork());
        assertEquals(before, port.bursts, "stepped back: no receive");
        assertEquals(true, agent.steppedBack());
        agent.doWork();
        assertEquals(before + 1, port.bursts, "no poll since: receiving again");
        // a thread about to block for an event brings it back at once
        agent.progress();
        agent.applicationBlocking();
        agent.doWork();
        assertEquals(before + 2, port.bursts);
    }
}
