package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code jrdma plot-qp-sweep}: a bench/qp-sweep CSV becomes an SVG; a CSV without points is an error. */
class QpSweepPlotTest {
    @Test
    void aSweepCsvBecomesAnSvgWithBandwidthAndMemorySeries(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("s.csv"), svg = dir.resolve("s.svg");
        Files.writeString(csv, "qps,gbits,heap_kib_per_qp,native_kib_per_qp\n1,9.5,12000,300000\n16,9.1,3.5,14.9\n"
                + "256,8.7,2.1,n/a\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Jrdma.commandLine(System.out, new PrintStream(err, true)).execute("plot-qp-sweep", csv.toString(), svg.toString());
        assertEquals(0, rc, err.toString());
        String s = Files.readString(svg);
        assertTrue(s.startsWith("<?xml") && s.contains("<svg") && s.contains("</svg>"), "an SVG document");
        assertTrue(s.contains("<path"), "something drawn (XChart's SVG renders text as paths too)");
    }

    @Test
    void aCsvWithoutPointsIsAnError(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("e.csv");
        Files.writeString(csv, "qps,gbits,heap_kib_per_qp,native_kib_per_qp\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cl = Jrdma.commandLine(System.out, new PrintStream(err, true));
        assertEquals(1, cl.execute("plot-qp-sweep", csv.toString(), dir.resolve("e.svg").toString()));
        assertTrue(err.toString().contains("no point"), err.toString());
    }
}
