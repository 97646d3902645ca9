package org.jrdma.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The soak's pattern finds every wrong byte, a wrong id and a wrong length. */
class PayloadTest {
    @Test
    void everyFlippedByteIsFoundWhereItIs() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(4096);
            for (int len : new int[] {16, 17, 23, 24, 100, 4096}) {
                Payload.fill(m, 0, len, 0x1234_5678_9abcL);
                assertEquals(-1, Payload.check(m, 0, len, 0x1234_5678_9abcL), "intact, " + len + " bytes");
                assertEquals(0x1234_5678_9abcL, Payload.id(m, 0));
                assertEquals(0, Payload.check(m, 0, len, 0x1234_5678_9abdL), "another message's id");
                for (int i = 0; i < len; i++) {
                    byte b = m.get(ValueLayout.JAVA_BYTE, i);
                    m.set(ValueLayout.JAVA_BYTE, i, (byte) (b ^ 0x10));
                    assertEquals(i, Payload.check(m, 0, len, 0x1234_5678_9abcL), "byte " + i + " of " + len);
                    m.set(ValueLayout.JAVA_BYTE, i, b);
                }
            }
            Payload.fill(m, 0, 100, 7);
            assertEquals(8, Payload.check(m, 0, 101, 7), "the length in the header differs");
        }
    }
}
