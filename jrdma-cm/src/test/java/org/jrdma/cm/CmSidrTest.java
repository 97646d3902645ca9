package org.jrdma.cm;

import static org.jrdma.cm.CmLoopbackTest.SERVER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.mad.CmSidrRep;
import org.jrdma.mad.CmSidrReq;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.junit.jupiter.api.Test;

/**
 * A SIDR_REQ to jrdma's CM (over the provider's QP1) is answered as Linux's IB CM answers one for a
 * service nobody serves: SIDR_REP status 1 "service ID not supported" (IBTA Vol 1 §12.11.2 table
 * 119), with the request ID and service ID echoed. The request comes from a bare CM-class agent on
 * jrxe1's QP1 (this JVM's CM uses only jrxe0).
 */
class CmSidrTest {
    @Test
    void aSidrReqIsAnsweredServiceIdNotSupported() throws Exception {
        try (CmId bound = CmLoopbackTest.serverCmRunning(); Context ctx = Verbs.getDevice("jrxe1").open()) {
            BlockingQueue<byte[]> got = new LinkedBlockingQueue<>();
            ManagementDatagrams mads = ctx.extension(ManagementDatagrams.class).orElseThrow();
            try (var agent = mads.register(1, MadHeader.MGMT_CLASS_CM, 2,
                    (from, mad) -> got.add(mad.asSlice(0, 256).toArray(ValueLayout.JAVA_BYTE)), MadHeader.METHOD_SEND)) {
                MemorySegment m = MemorySegment.ofArray(new byte[256]);
                new CmSidrReq().wrap(m, 0).clear(0x1234L).requestId(0x55667788).partitionKey(0xffff)
                        .serviceId(PortSpace.UDP.serviceId(7400));
                agent.send(ManagementDatagrams.MadAddress.gsi(Gid.of(SERVER)), m, 0, 0);
                byte[] rep = got.poll(10, TimeUnit.SECONDS);
                assertNotNull(rep, "no SIDR_REP");
                MemorySegment r = MemorySegment.ofArray(rep);
                assertEquals(CmSidrRep.ATTRIBUTE_ID, new MadHeader().wrap(r, 0).attributeId());
                assertEquals(0x1234L, new MadHeader().wrap(r, 0).transactionId());
                CmSidrRep s = new CmSidrRep().wrap(r, 0);
                assertEquals(0x55667788, s.requestId());
                assertEquals(1, s.status());
                assertEquals(PortSpace.UDP.serviceId(7400), s.serviceId());
            }
        }
    }
}
