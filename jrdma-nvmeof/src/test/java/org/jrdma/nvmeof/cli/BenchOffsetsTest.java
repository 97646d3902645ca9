package org.jrdma.nvmeof.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@code jrdma nvme bench}'s offsets: distinct, aligned, inside the namespace, reproducible from the seed. */
class BenchOffsetsTest {
    @Test
    void randomOffsetsAreDistinctAlignedAndInside() {
        // the lab's 64 MiB RAM disk: 131072 blocks of 512 bytes, 16384 slots of 4 KiB
        long[] a = Bench.offsets(131072, 512, 4096, 1000, true, 17);
        assertEquals(1000, Arrays.stream(a).distinct().count());
        assertTrue(Arrays.stream(a).allMatch(l -> l % 8 == 0 && l >= 0 && l + 8 <= 131072));
        assertArrayEquals(a, Bench.offsets(131072, 512, 4096, 1000, true, 17));
        // every slot once when the I/Os fill the namespace
        long[] all = Bench.offsets(64, 512, 4096, 8, true, 3);
        assertArrayEquals(new long[] {0, 8, 16, 24, 32, 40, 48, 56}, Arrays.stream(all).sorted().toArray());
        assertArrayEquals(new long[] {0, 8, 16}, Bench.offsets(64, 512, 4096, 3, false, 0));
        assertThrows(IllegalArgumentException.class, () -> Bench.offsets(64, 512, 4096, 9, true, 0));
    }
}
