package org.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** An SGE's length is 0..2^31-1 (ibv_sge's uint32_t above 2^31-1 is a negative int in Java). */
class SgeTest {
    @Test
    void aCCallersAllOnesLengthIsEinvalEverywhereALengthIsSet() {
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> new Sge(0x1000, 0xffffffff, 1)).errno());
        Sge s = new Sge(0x1000, 64, 1);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> s.length(0xffffffff)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> s.set(0x2000, Integer.MIN_VALUE, 2)).errno());
        assertEquals(64, s.length(), "a refused length changes nothing");
        assertEquals(0x1000, s.addr());
        assertEquals(1, s.lkey());
    }

    @Test
    void zeroAndTwoTo31MinusOneAreLengths() {
        assertEquals(0, new Sge(0x1000, 0, 1).length());
        assertEquals(Integer.MAX_VALUE, new Sge().length(Integer.MAX_VALUE).length());
    }
}
