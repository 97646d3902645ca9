package org.jrdma.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The Byte[Bit] field access every CM flyweight is built on, against a big-integer model of the 16 bytes
 * around the field: a set writes exactly the field's bits (MSB-first from bit {@code bit} of byte
 * {@code off}), a get reads them back, nothing else changes.
 */
class BitsProperties {
    @Property(tries = 2000)
    void setWritesOnlyTheFieldAndGetReadsIt(@ForAll long seed, @ForAll @IntRange(max = 8) int off,
                                            @ForAll @IntRange(max = 7) int bit, @ForAll @IntRange(min = 1, max = 32) int width,
                                            @ForAll long value) {
        byte[] b = new byte[16];
        new SplittableRandom(seed).nextBytes(b);
        MemorySegment s = MemorySegment.ofArray(b.clone());
        Bits.set(s, off, bit, width, value);
        // model: the 128 bits as an unsigned big integer, bit 127 = MSB of byte 0
        BigInteger before = new BigInteger(1, b);
        int lowBit = 128 - (off * 8 + bit + width); // position of the field's least significant bit
        BigInteger mask = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE).shiftLeft(lowBit);
        BigInteger v = BigInteger.valueOf(value).and(BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE));
        BigInteger want = before.andNot(mask).or(v.shiftLeft(lowBit));
        assertEquals(want, new BigInteger(1, s.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(v.intValue(), Bits.get(s, off, bit, width));
    }
}
