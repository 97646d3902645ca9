package org.jrdma.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The bit layout of every CM message. The expected positions are literals in MAD byte offsets (message offset
 * + 24) from the IBTA tables as Linux's {@code include/rdma/ibta_vol1_c12.h} gives them; the captures cover
 * REQ/REP/RTU/DREQ/DREP ({@link CmCaptureTest}), this test the messages the captures do not hold (MRA, REJ,
 * SIDR_REQ, SIDR_REP, LAP, APR) and, for all eleven, that fields never overlap and stay inside the MAD's class
 * data.
 */
class CmLayoutTest {
    private static final List<Class<?>> ALL = List.of(CmReq.class, CmMra.class, CmRej.class, CmRep.class, CmRtu.class,
        CmDreq.class, CmDrep.class, CmSidrReq.class, CmSidrRep.class, CmLap.class, CmApr.class);

    private static Object wrap(Class<?> type, MemorySegment s) throws Exception {
        return type.getMethod("wrap", MemorySegment.class, long.class).invoke(type.getConstructor().newInstance(), s, 0L);
    }

    /** The bits a field's setter sets when given all ones, on a zeroed MAD. */
    private static BitSet bitsOf(Class<?> type, Method getter) throws Exception {
        MemorySegment s = Arena.ofAuto().allocate(MadHeader.MAD_LENGTH);
        Object f = wrap(type, s);
        Class<?> t = getter.getReturnType();
        Method setter = type.getMethod(getter.getName(), t);
        Object ones;
        if (t == int.class) {
            ones = -1;
        } else if (t == long.class) {
            ones = -1L;
        } else if (t == boolean.class) {
            ones = true;
        } else {
            byte[] b = new byte[((byte[]) getter.invoke(f)).length];
            Arrays.fill(b, (byte) 0xff);
            ones = b;
        }
        setter.invoke(f, ones);
        BitSet bits = BitSet.valueOf(reverseBits(s.toArray(ValueLayout.JAVA_BYTE)));
        // the getter reads back what was set, within the field's width
        if (t == int.class) {
            assertEquals(bits.cardinality() == 32 ? -1 : (1 << bits.cardinality()) - 1, getter.invoke(f),
                type.getSimpleName() + "." + getter.getName());
        }
        return bits;
    }

    /** Bit i of the result = bit (7 - i % 8) of byte i / 8: MSB-first numbering as the spec's Byte[Bit]. */
    private static byte[] reverseBits(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = (byte) (Integer.reverse(b[i] & 0xff) >>> 24);
        }
        return r;
    }

    @Test
    void fieldsNeverOverlapAndStayInTheClassData() throws Exception {
        for (Class<?> type : ALL) {
            BitSet used = new BitSet();
            for (Method g : CmCaptureTest.FlyweightFields.getters(type)) {
                BitSet b = bitsOf(type, g);
                assertTrue(b.cardinality() > 0, type.getSimpleName() + "." + g.getName() + " sets nothing");
                assertTrue(b.nextSetBit(0) >= MadHeader.LENGTH * 8, type.getSimpleName() + "." + g.getName() + " in the header");
                assertTrue(!b.intersects(used), type.getSimpleName() + "." + g.getName() + " overlaps another field");
                used.or(b);
            }
            assertTrue(used.get(MadHeader.MAD_LENGTH * 8 - 1), type.getSimpleName() + ": private data runs to the end");
        }
    }

    /** "byte:mask" items and "from-to" ranges of whole bytes, MAD offsets. */
    private static void expect(Class<?> type, String field, String where) throws Exception {
        byte[] want = new byte[MadHeader.MAD_LENGTH];
        for (String item : where.split(" ")) {
            if (item.contains(":")) {
                String[] p = item.split(":");
                want[Integer.parseInt(p[0])] = (byte) Integer.parseInt(p[1], 16);
            } else {
                String[] p = item.split("-");
                for (int i = Integer.parseInt(p[0]); i <= Integer.parseInt(p[p.length - 1]); i++) {
                    want[i] = (byte) 0xff;
                }
            }
        }
        Method g = type.getMethod(field);
        BitSet got = bitsOf(type, g);
        assertEquals(BitSet.valueOf(reverseBits(want)), got, type.getSimpleName() + "." + field);
    }

    @Test
    void mra() throws Exception {
        expect(CmMra.class, "localCommId", "24-27");
        expect(CmMra.class, "remoteCommId", "28-31");
        expect(CmMra.class, "messageMraed", "32:c0");
        expect(CmMra.class, "serviceTimeout", "33:f8");
        expect(CmMra.class, "privateData", "34-255");
    }

    @Test
    void rej() throws Exception {
        expect(CmRej.class, "messageRejected", "32:c0");
        expect(CmRej.class, "rejectedInfoLength", "33:fe");
        expect(CmRej.class, "reason", "34-35");
        expect(CmRej.class, "ari", "36-107");
        expect(CmRej.class, "privateData", "108-255");
    }

    @Test
    void sidr() throws Exception {
        expect(CmSidrReq.class, "requestId", "24-27");
        expect(CmSidrReq.class, "partitionKey", "28-29");
        expect(CmSidrReq.class, "serviceId", "32-39");
        expect(CmSidrReq.class, "privateData", "40-255");
        expect(CmSidrRep.class, "requestId", "24-27");
        expect(CmSidrRep.class, "status", "28");
        expect(CmSidrRep.class, "additionalInformationLength", "29");
        expect(CmSidrRep.class, "vendorId", "30-31 35");
        expect(CmSidrRep.class, "qpn", "32-34");
        expect(CmSidrRep.class, "serviceId", "36-43");
        expect(CmSidrRep.class, "qKey", "44-47");
        expect(CmSidrRep.class, "additionalInformation", "48-119");
        expect(CmSidrRep.class, "privateData", "120-255");
    }

    @Test
    void lapAndApr() throws Exception {
        expect(CmLap.class, "remoteQpnEecn", "36-38");
        expect(CmLap.class, "remoteCmResponseTimeout", "39:f8");
        expect(CmLap.class, "alternateLocalPortLid", "44-45");
        expect(CmLap.class, "alternateRemotePortLid", "46-47");
        expect(CmLap.class, "alternateLocalPortGid", "48-63");
        expect(CmLap.class, "alternateRemotePortGid", "64-79");
        expect(CmLap.class, "alternateFlowLabel", "80-81 82:f0");
        expect(CmLap.class, "alternateTrafficClass", "83");
        expect(CmLap.class, "alternateHopLimit", "84");
        expect(CmLap.class, "alternatePacketRate", "85:3f");
        expect(CmLap.class, "alternateSl", "86:f0");
        expect(CmLap.class, "alternateSubnetLocal", "86:08");
        expect(CmLap.class, "alternateLocalAckTimeout", "87:f8");
        expect(CmLap.class, "privateData", "88-255");
        expect(CmApr.class, "additionalInformationLength", "32");
        expect(CmApr.class, "arStatus", "33");
        expect(CmApr.class, "additionalInformation", "36-107");
        expect(CmApr.class, "privateData", "108-255");
    }

    @Test
    void reqAndRepBitsTheCapturesLeaveZero() throws Exception {
        expect(CmReq.class, "vendorId", "29-31");
        expect(CmReq.class, "transportServiceType", "67:06");
        expect(CmReq.class, "endToEndFlowControl", "67:01");
        expect(CmReq.class, "rdcExists", "74:08");
        expect(CmReq.class, "srq", "75:08");
        expect(CmReq.class, "extendedTransportType", "75:07");
        expect(CmReq.class, "primaryPacketRate", "115:3f");
        expect(CmReq.class, "primarySubnetLocal", "118:08");
        expect(CmReq.class, "alternateFlowLabel", "156-157 158:f0");
        expect(CmReq.class, "alternatePacketRate", "159:3f");
        expect(CmReq.class, "sapSupported", "163:04");
        expect(CmRep.class, "vendorId", "39 43 47");
        expect(CmRep.class, "failoverAccepted", "50:06");
        expect(CmRep.class, "srq", "51:10");
        expect(CmRep.class, "localCaGuid", "52-59");
        expect(CmRep.class, "privateData", "60-255");
    }

    @Test
    void clearWritesACmSendHeader() {
        MemorySegment s = Arena.ofAuto().allocate(MadHeader.MAD_LENGTH);
        s.fill((byte) 0x77);
        new CmRej().wrap(s, 0).clear(0x1122334455667788L).reason(CmRejReason.INVALID_SERVICE_ID.code());
        MadHeader h = new MadHeader().wrap(s, 0);
        assertEquals(1, h.baseVersion());
        assertEquals(0x07, h.mgmtClass());
        assertEquals(2, h.classVersion());
        assertEquals(0x03, h.method());
        assertEquals(0, h.status());
        assertEquals(0x1122334455667788L, h.transactionId());
        assertEquals(0x0012, h.attributeId());
        assertEquals(0, h.reserved());
        assertEquals(8, new CmRej().wrap(s, 0).reason());
        assertEquals(CmRejReason.INVALID_SERVICE_ID, CmRejReason.of(8));
        assertEquals(CmRejReason.CONSUMER_DEFINED, CmRejReason.of(28));
        assertEquals(null, CmRejReason.of(34));
        assertEquals(null, CmRejReason.of(-1));
        byte[] rest = s.asSlice(36).toArray(ValueLayout.JAVA_BYTE);
        assertTrue(Arrays.equals(new byte[rest.length], rest), "clear zeroes the message");
    }

    @Test
    void privateDataLongerThanTheFieldIsRefused() {
        MemorySegment s = Arena.ofAuto().allocate(MadHeader.MAD_LENGTH);
        CmReq req = new CmReq().wrap(s, 0);
        req.privateData(new byte[CmReq.PRIVATE_DATA_LENGTH]);
        assertThrows(IllegalArgumentException.class, () -> req.privateData(new byte[CmReq.PRIVATE_DATA_LENGTH + 1]));
        assertEquals(92, CmReq.PRIVATE_DATA_LENGTH);
        assertEquals(196, CmRep.PRIVATE_DATA_LENGTH);
        assertEquals(148, CmRej.PRIVATE_DATA_LENGTH);
        assertEquals(224, CmRtu.PRIVATE_DATA_LENGTH);
        assertEquals(220, CmDreq.PRIVATE_DATA_LENGTH);
        assertEquals(224, CmDrep.PRIVATE_DATA_LENGTH);
        assertEquals(222, CmMra.PRIVATE_DATA_LENGTH);
        assertEquals(216, CmSidrReq.PRIVATE_DATA_LENGTH);
        assertEquals(136, CmSidrRep.PRIVATE_DATA_LENGTH);
        assertEquals(4096L << 20, Cm.timeoutNanos(20), "CM response timeout 20 = 4.3 s");
    }
}
