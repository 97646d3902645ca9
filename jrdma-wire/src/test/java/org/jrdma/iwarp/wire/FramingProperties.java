package org.jrdma.iwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Framer → deframer round trip: random DDP segments (tagged Writes and untagged Sends of random payload
 * sizes, CRC on or off) framed by {@link FpduFramer} back to back into one byte stream, handed to
 * {@link FpduDeframer} cut at random TCP read boundaries (from 1 byte to 64 KiB, so reads end inside
 * length fields, headers, pads and CRCs, and hold several FPDUs), must come out as the same segments in the
 * same order with nothing dropped and nothing left over.
 */
class FramingProperties {

    @Property(tries = 120)
    void roundTripAtRandomReadBoundaries(@ForAll long seed, @ForAll boolean crc,
                                         @ForAll @IntRange(min = 1, max = 40) int segments,
                                         @ForAll @IntRange(min = 0, max = 3) int readScale,
                                         @ForAll boolean zeroCopy) {
        Random rnd = new Random(seed);
        FpduFramer framer = new FpduFramer().crcEnabled(crc);
        List<byte[]> ulpdus = new ArrayList<>();
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        DdpHeader h = new DdpHeader();
        for (int i = 0; i < segments; i++) {
            boolean tagged = rnd.nextBoolean();
            int header = tagged ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
            int maxPayload = rnd.nextInt(16) == 0 ? Mpa.MAX_ULPDU_LENGTH - header : 3000;
            int payload = rnd.nextInt(maxPayload + 1);
            int ulpdu = header + payload;
            ByteBuffer b = ByteBuffer.allocate(Mpa.fpduLength(ulpdu));
            MemorySegment s = MemorySegment.ofBuffer(b);
            h.wrap(s, 2).control(tagged ? RdmapOpcode.RDMA_WRITE : RdmapOpcode.SEND, rnd.nextBoolean());
            if (tagged) {
                h.stag(rnd.nextInt()).taggedOffset(rnd.nextLong());
            } else {
                h.queueNumber(DdpHeader.QN_SEND).msn(rnd.nextInt()).messageOffset(rnd.nextInt());
            }
            for (int k = 0; k < payload; k++) {
                b.put(2 + header + k, (byte) rnd.nextInt());
            }
            framer.frame(b, 0, ulpdu);
            byte[] u = new byte[ulpdu];
            b.get(2, u);
            ulpdus.add(u);
            stream.write(b.array(), 0, b.capacity());
        }
        byte[] all = stream.toByteArray();

        FpduDeframer d = new FpduDeframer().crcEnabled(crc);
        List<byte[]> got = new ArrayList<>();
        List<Integer> drops = new ArrayList<>();
        FpduHandler handler = new FpduHandler() {
            @Override
            public void onFpdu(MemorySegment seg, long off, int len) {
                byte[] u = new byte[len];
                MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, u, 0, len);
                got.add(u);
            }

            @Override
            public void onDrop(int reason, MemorySegment seg, long offset, int length) {
                drops.add(reason);
            }
        };
        int maxRead = new int[] {8, 100, 2000, 70000}[readScale];
        int at = 0;
        while (at < all.length) {
            int n = Math.min(all.length - at, 1 + rnd.nextInt(maxRead));
            if (zeroCopy) {
                ByteBuffer into = d.receiveBuffer();
                n = Math.min(n, into.remaining());
                into.put(all, at, n);
                d.process(n, handler);
            } else {
                d.feed(ByteBuffer.wrap(all, at, n), handler);
            }
            at += n;
        }
        assertEquals(List.of(), drops);
        assertEquals(ulpdus.size(), got.size());
        for (int i = 0; i < ulpdus.size(); i++) {
            assertArrayEquals(ulpdus.get(i), got.get(i), "segment " + i);
        }
        assertEquals(0, d.buffered());
        assertEquals(all.length, d.bytes());
        assertEquals(segments, d.fpdus());
    }

    @Property(tries = 200)
    void anySingleBitFlipIsACrcDropWhenCrcIsOn(@ForAll @IntRange(min = 0, max = 2000) int payload,
                                                @ForAll @IntRange(min = 0, max = 1_000_000) int where) {
        byte[] f = FpduDeframerTest.send(payload, true);
        int bit = where % ((f.length - 2) * 8); // not the length field: that changes the framing itself
        f[2 + bit / 8] ^= (byte) (1 << (bit % 8));
        FpduDeframer d = new FpduDeframer().crcEnabled(true);
        List<Integer> drops = new ArrayList<>();
        d.feed(ByteBuffer.wrap(f), new FpduHandler() {
            @Override
            public void onFpdu(MemorySegment seg, long off, int len) {
            }

            @Override
            public void onDrop(int reason, MemorySegment seg, long offset, int length) {
                drops.add(reason);
            }
        });
        assertEquals(List.of(FpduDropReason.BAD_CRC), drops);
    }

    @Property(tries = 200)
    void gatheredFramingEqualsContiguousFraming(@ForAll @IntRange(min = 0, max = 3000) int payload,
                                                @ForAll boolean crc, @ForAll long seed) {
        Random rnd = new Random(seed);
        int ulpdu = DdpHeader.TAGGED_LENGTH + payload;
        ByteBuffer whole = ByteBuffer.allocateDirect(Mpa.fpduLength(ulpdu));
        for (int i = 2; i < 2 + ulpdu; i++) {
            whole.put(i, (byte) rnd.nextInt());
        }
        FpduFramer framer = new FpduFramer().crcEnabled(crc);
        // gathered: header piece, payload piece, trailer piece
        ByteBuffer hdr = ByteBuffer.allocate(2 + DdpHeader.TAGGED_LENGTH);
        ByteBuffer pay = ByteBuffer.allocateDirect(payload);
        ByteBuffer tail = ByteBuffer.allocate(7);
        for (int i = 0; i < DdpHeader.TAGGED_LENGTH; i++) {
            hdr.put(2 + i, whole.get(2 + i));
        }
        for (int i = 0; i < payload; i++) {
            pay.put(i, whole.get(2 + DdpHeader.TAGGED_LENGTH + i));
        }
        FpduFramer.header(hdr, 0, ulpdu);
        FpduCrc c = new FpduCrc().reset().update(hdr, 0, hdr.capacity()).update(pay, 0, payload)
            .updatePad(Mpa.padLength(ulpdu));
        int tl = framer.trailer(tail, 0, ulpdu, c.value());
        framer.frame(whole, 0, ulpdu);
        ByteBuffer g = ByteBuffer.allocate(whole.capacity());
        g.put(hdr.array()).put(pay.duplicate().clear()).put(tail.array(), 0, tl);
        byte[] a = new byte[whole.capacity()];
        whole.get(0, a);
        assertArrayEquals(a, g.array());
        assertEquals(0, pay.position(), "FpduCrc leaves positions alone");
    }
}
