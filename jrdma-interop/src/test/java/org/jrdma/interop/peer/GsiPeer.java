package org.jrdma.interop.peer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAgent;

/**
 * jrdma's QP1 in the lab (run by {@code RxeGsiInteropTest} on the host in the lab namespace, device
 * {@code jrxe0} of {@code JRDMA_DEVICES}): {@code ping DST} sends a CM Get(ClassPortInfo) to DST's QP1 as a
 * CM agent registered for Send only would, and prints the answer; {@code serve SECS} keeps the device open
 * without agents for SECS seconds (printing {@code serving} first), so that {@code roce.py mad-ping} gets
 * jrdma's answer. Exit 0 when an answer came (ping) or the time is up (serve), 1 otherwise.
 */
public final class GsiPeer {
    /** The TID of the Get that {@code ping} sends. */
    static final long TID = 0x0000004a12345678L;

    private GsiPeer() {
    }

    public static void main(String[] a) throws Exception {
        try (Context c = Verbs.getDevice("jrxe0").open()) {
            ManagementDatagrams m = c.extension(ManagementDatagrams.class).orElseThrow();
            HardwareCounters hw = c.extension(HardwareCounters.class).orElseThrow();
            int rc = 0;
            if (a[0].equals("ping")) {
                ArrayBlockingQueue<byte[]> got = new ArrayBlockingQueue<>(4);
                try (MadAgent agent = m.register(1, MadHeader.MGMT_CLASS_CM, 2, new ManagementDatagrams.MadHandler() {
                    @Override
                    public void received(MadAddress from, MemorySegment mad) {
                        System.out.println("received from " + from.gid() + " qpn " + from.remoteQpn());
                        got.add(mad.toArray(ValueLayout.JAVA_BYTE));
                    }

                    @Override
                    public void sendFailed(long tid) {
                        System.out.println("sendFailed 0x" + Long.toHexString(tid));
                    }
                }, MadHeader.METHOD_SEND)) {
                    MemorySegment mad = Arena.ofAuto().allocate(256);
                    new MadHeader().wrap(mad, 0).baseVersion(1).mgmtClass(MadHeader.MGMT_CLASS_CM).classVersion(2)
                        .method(MadHeader.METHOD_GET).transactionId(TID).attributeId(MadHeader.ATTR_CLASS_PORT_INFO);
                    agent.send(MadAddress.gsi(Gid.of(InetAddress.getByName(a[1]))), mad, 2000, 3);
                    byte[] r = got.poll(15, TimeUnit.SECONDS);
                    if (r == null) {
                        System.out.println("no answer");
                        rc = 1;
                    } else {
                        MadHeader h = new MadHeader().wrap(MemorySegment.ofArray(r), 0);
                        System.out.printf("answer: class 0x%02x version %d method 0x%02x status 0x%04x attr 0x%04x tid 0x%016x%n",
                            h.mgmtClass(), h.classVersion(), h.method(), h.status(), h.attributeId(), h.transactionId());
                        boolean same = MemorySegment.ofArray(r).asSlice(24).mismatch(mad.asSlice(24)) == -1;
                        System.out.println("class data unchanged: " + same);
                    }
                }
            } else {
                System.out.println("serving");
                Thread.sleep(Long.parseLong(a[1]) * 1000);
            }
            System.out.println("counters: gsi_sent_mads " + hw.get("gsi_sent_mads") + " gsi_rcvd_mads "
                + hw.get("gsi_rcvd_mads") + " gsi_resent_mads " + hw.get("gsi_resent_mads")
                + " gsi_unsupported_answers " + hw.get("gsi_unsupported_answers"));
            System.exit(rc);
        }
    }
}
