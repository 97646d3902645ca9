package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jrdma.fabric.plot.FabricPlots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SVG plots of a run: the four charts, drawn from its files. */
class FabricPlotsTest {
    @Test
    void aRunWithPausesAndFinishedFlowsGetsAllFourPlots(@TempDir Path tmp) throws Exception {
        Runs.run("""
                topology incast senders=2 rate=10Gbps delay=1us
                buffer size=200KB
                pfc mode=xon-xoff
                dcqcn off
                flows incast dst=h0 size=300KB
                sample interval=5us
                duration 2ms
                """, 1, tmp);
        assertTrue(Files.size(tmp.resolve("pfc.txt")) > 0, "the incast paused");
        List<Path> w = FabricPlots.write(tmp);
        assertEquals(List.of("rate.svg", "queue.svg", "pause.svg", "fct-slowdown.svg"),
                w.stream().map(p -> p.getFileName().toString()).toList());
        String rate = Files.readString(tmp.resolve("rate.svg"));
        assertTrue(rate.startsWith("<?xml") && rate.contains("<svg"), rate.substring(0, 80));
        for (Path p : w) {
            assertTrue(Files.size(p) > 10_000, p + ": " + Files.size(p) + " B"); // axes, labels (glyph paths), lines
        }
    }
}
