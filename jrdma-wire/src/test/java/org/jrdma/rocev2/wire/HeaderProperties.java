package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.jrdma.mad.MadHeader;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * encode∘decode identity of every header flyweight: values written through the setters at any offset
 * read back (masked to the field width), and the bytes outside the header are untouched.
 */
class HeaderProperties {
    private static final int SIZE = 96;

    private static MemorySegment filled(long seed) {
        byte[] b = new byte[SIZE];
        new java.util.Random(seed).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    /** Asserts that only bytes [off, off+len) differ between before and after. */
    private static void onlyInside(MemorySegment before, MemorySegment after, int off, int len) {
        byte[] a = before.toArray(ValueLayout.JAVA_BYTE);
        byte[] b = after.toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(Arrays.copyOfRange(a, 0, off), Arrays.copyOfRange(b, 0, off));
        assertArrayEquals(Arrays.copyOfRange(a, off + len, SIZE), Arrays.copyOfRange(b, off + len, SIZE));
    }

    @Property(tries = 500)
    void bth(@ForAll long seed, @ForAll @IntRange(max = SIZE - Bth.LENGTH) int off, @ForAll int opcode,
             @ForAll boolean se, @ForAll boolean m, @ForAll int pad, @ForAll int tver, @ForAll int pkey,
             @ForAll boolean fecn, @ForAll boolean becn, @ForAll int qpn, @ForAll boolean ackReq, @ForAll int psn) {
        MemorySegment s = filled(seed);
        MemorySegment before = filled(seed);
        int resv6 = new Bth().wrap(s, off).resv6();
        int resv7 = new Bth().wrap(s, off).resv7();
        Bth h = new Bth().wrap(s, off).opcode(opcode).se(se).migReq(m).padCount(pad).tver(tver).pkey(pkey)
            .fecn(fecn).becn(becn).destQpn(qpn).ackReq(ackReq).psn(psn);
        Bth r = new Bth().wrap(s, off);
        assertEquals(opcode & 0xff, r.opcode());
        assertEquals(se, r.se());
        assertEquals(m, r.migReq());
        assertEquals(pad & 3, r.padCount());
        assertEquals(tver & 0xf, r.tver());
        assertEquals(pkey & 0xffff, r.pkey());
        assertEquals(fecn, r.fecn());
        assertEquals(becn, r.becn());
        assertEquals(resv6, r.resv6(), "setters leave the reserved bits alone");
        assertEquals(qpn & 0xffffff, r.destQpn());
        assertEquals(ackReq, r.ackReq());
        assertEquals(resv7, r.resv7());
        assertEquals(psn & 0xffffff, r.psn());
        assertEquals(off, h.offset());
        onlyInside(before, s, off, Bth.LENGTH);
    }

    @Property(tries = 300)
    void reth(@ForAll long seed, @ForAll @IntRange(max = SIZE - Reth.LENGTH) int off, @ForAll long va, @ForAll int rkey,
              @ForAll int len) {
        MemorySegment s = filled(seed);
        new Reth().wrap(s, off).va(va).rkey(rkey).dmaLength(len);
        Reth r = new Reth().wrap(s, off);
        assertEquals(va, r.va());
        assertEquals(rkey, r.rkey());
        assertEquals(len, r.dmaLength());
        onlyInside(filled(seed), s, off, Reth.LENGTH);
    }

    @Property(tries = 300)
    void aeth(@ForAll long seed, @ForAll @IntRange(max = SIZE - Aeth.LENGTH) int off, @ForAll int syndrome, @ForAll int msn) {
        MemorySegment s = filled(seed);
        new Aeth().wrap(s, off).syndrome(syndrome).msn(msn);
        Aeth r = new Aeth().wrap(s, off);
        assertEquals(syndrome & 0xff, r.syndrome());
        assertEquals(msn & 0xffffff, r.msn());
        onlyInside(filled(seed), s, off, Aeth.LENGTH);
    }

    @Property(tries = 100)
    void aethSyndromeHelpers(@ForAll @IntRange(max = 31) int v) {
        assertEquals(Aeth.TYPE_ACK, Aeth.syndromeType(Aeth.ackSyndrome(v)));
        assertEquals(v, Aeth.syndromeValue(Aeth.rnrNakSyndrome(v)));
        assertEquals(Aeth.TYPE_NAK, Aeth.syndromeType(Aeth.nakSyndrome(v)));
        assertEquals(true, Aeth.isRnrNak(Aeth.rnrNakSyndrome(v)));
        assertEquals(true, Aeth.isNak(Aeth.nakSyndrome(v)));
        assertEquals(true, Aeth.isAck(Aeth.ackSyndrome(v)));
    }

    @Property(tries = 300)
    void atomicEth(@ForAll long seed, @ForAll @IntRange(max = SIZE - AtomicEth.LENGTH) int off, @ForAll long va,
                   @ForAll int rkey, @ForAll long swap, @ForAll long compare) {
        MemorySegment s = filled(seed);
        new AtomicEth().wrap(s, off).va(va).rkey(rkey).swapData(swap).compareData(compare);
        AtomicEth r = new AtomicEth().wrap(s, off);
        assertEquals(va, r.va());
        assertEquals(rkey, r.rkey());
        assertEquals(swap, r.swapData());
        assertEquals(compare, r.compareData());
        onlyInside(filled(seed), s, off, AtomicEth.LENGTH);
    }

    @Property(tries = 200)
    void smallHeaders(@ForAll long seed, @ForAll @IntRange(max = SIZE - 8) int off, @ForAll long orig, @ForAll int imm,
                      @ForAll int rkey, @ForAll int qkey, @ForAll int srcQpn) {
        MemorySegment s = filled(seed);
        new AtomicAckEth().wrap(s, off).origRemoteData(orig);
        assertEquals(orig, new AtomicAckEth().wrap(s, off).origRemoteData());
        onlyInside(filled(seed), s, off, AtomicAckEth.LENGTH);

        s = filled(seed);
        new ImmDt().wrap(s, off).immDt(imm);
        assertEquals(imm, new ImmDt().wrap(s, off).immDt());
        onlyInside(filled(seed), s, off, ImmDt.LENGTH);

        s = filled(seed);
        new Ieth().wrap(s, off).rkey(rkey);
        assertEquals(rkey, new Ieth().wrap(s, off).rkey());
        onlyInside(filled(seed), s, off, Ieth.LENGTH);

        s = filled(seed);
        byte reserved = s.get(ValueLayout.JAVA_BYTE, off + 4);
        new Deth().wrap(s, off).qkey(qkey).srcQpn(srcQpn);
        Deth d = new Deth().wrap(s, off);
        assertEquals(qkey, d.qkey());
        assertEquals(srcQpn & 0xffffff, d.srcQpn());
        assertEquals(reserved, s.get(ValueLayout.JAVA_BYTE, off + 4));
        onlyInside(filled(seed), s, off, Deth.LENGTH);
    }

    @Property(tries = 300)
    void mad(@ForAll long seed, @ForAll @IntRange(max = SIZE - MadHeader.LENGTH) int off, @ForAll int base, @ForAll int mgmt,
             @ForAll int cv, @ForAll int method, @ForAll int status, @ForAll int cs, @ForAll long tid, @ForAll int attr,
             @ForAll int mod) {
        MemorySegment s = filled(seed);
        new MadHeader().wrap(s, off).baseVersion(base).mgmtClass(mgmt).classVersion(cv).method(method).status(status)
            .classSpecific(cs).transactionId(tid).attributeId(attr).attributeModifier(mod);
        MadHeader r = new MadHeader().wrap(s, off);
        assertEquals(base & 0xff, r.baseVersion());
        assertEquals(mgmt & 0xff, r.mgmtClass());
        assertEquals(cv & 0xff, r.classVersion());
        assertEquals(method & 0xff, r.method());
        assertEquals(status & 0xffff, r.status());
        assertEquals(cs & 0xffff, r.classSpecific());
        assertEquals(tid, r.transactionId());
        assertEquals(attr & 0xffff, r.attributeId());
        assertEquals(mod, r.attributeModifier());
        MemorySegment before = filled(seed);
        assertEquals(before.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 18), s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 18),
            "reserved bytes 18-19 untouched");
        onlyInside(before, s, off, MadHeader.LENGTH);
    }
}
