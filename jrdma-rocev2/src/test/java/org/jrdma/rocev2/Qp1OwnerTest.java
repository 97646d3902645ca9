package org.jrdma.rocev2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAgent;
import org.jrdma.verbs.ext.ManagementDatagrams.MadHandler;
import org.junit.jupiter.api.Test;

/**
 * QP1 of a shared device belongs to the member holding slot 0 ({@link DeviceShare}): two members of one
 * device (as two processes would be: each its socket, lock file and slot), the second's register fails
 * with EBUSY naming the owner's PID, and MADs for the device's QP1 reach the owner's agent only.
 */
class Qp1OwnerTest {
    @Test
    void theSecondMemberGetsEbusyNamingTheOwnerAndMadsReachTheOwner() throws Exception {
        String n = SharedDeviceTest.net();
        RxeDevice a1 = new RxeDevice("qo1", SharedDeviceTest.ip(n + "1"));
        RxeDevice a2 = new RxeDevice("qo2", SharedDeviceTest.ip(n + "1"));
        RxeDevice b = new RxeDevice("qob", SharedDeviceTest.ip(n + "2"));
        try (Context c1 = a1.open(); Context c2 = a2.open(); Context cb = b.open()) {
            assertArrayEquals(new int[] {1 << 18, (2 << 18) - 1}, a2.qpnRange(), "a2 holds slot 1");
            ManagementDatagrams m2 = c2.extension(ManagementDatagrams.class).orElseThrow();
            VerbsException e = assertThrows(VerbsException.class, () -> m2.register(1, 0x0A, 1, (f, m) -> { }));
            assertEquals(Errno.EBUSY, e.errno());
            assertTrue(e.getMessage().contains("process " + ProcessHandle.current().pid()), e.getMessage());
            assertTrue(e.getMessage().contains("slot 0"), e.getMessage());

            List<byte[]> got = new CopyOnWriteArrayList<>();
            MadHandler h = (f, m) -> got.add(m.toArray(ValueLayout.JAVA_BYTE));
            try (MadAgent owner = c1.extension(ManagementDatagrams.class).orElseThrow().register(1, 0x0A, 1, h);
                 MadAgent sender = cb.extension(ManagementDatagrams.class).orElseThrow().register(1, 0x0A, 1, h)) {
                MemorySegment mad = Arena.ofAuto().allocate(256);
                new MadHeader().wrap(mad, 0).baseVersion(1).mgmtClass(0x0A).classVersion(1)
                    .method(MadHeader.METHOD_SEND).transactionId(42);
                sender.send(MadAddress.gsi(c1.queryGid(1, 0)), mad, 0, 0);
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (got.isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "the owner gets the MAD");
                    Thread.sleep(1);
                }
                assertArrayEquals(mad.toArray(ValueLayout.JAVA_BYTE), got.get(0));
                Thread.sleep(50);
                assertEquals(1, got.size());
                assertEquals(0L, ((RxeContext) c2).counters().get(Counters.GSI_RCVD_MADS));
                assertEquals(0L, ((RxeContext) c2).counters().get(Counters.GSI_DROP_NOT_OWNER),
                    "the kernel steers QPN 1 to slot 0's socket");
            }
        }
    }
}
