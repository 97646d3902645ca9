package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** {@code --plot}: the chart files are valid SVG (XML with an svg root) and PNG (decodable, the chart's size). */
class PlotTest {
    /** The 8 bytes every PNG starts with (PNG specification, 5.2). */
    static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    static Document assertSvg(Path f) throws Exception {
        assertTrue(Files.isRegularFile(f), f + " was not written");
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document d = dbf.newDocumentBuilder().parse(f.toFile());
        assertEquals("svg", d.getDocumentElement().getLocalName());
        assertEquals("http://www.w3.org/2000/svg", d.getDocumentElement().getNamespaceURI());
        return d;
    }

    static BufferedImage assertPng(Path f) throws Exception {
        assertTrue(Files.isRegularFile(f), f + " was not written");
        byte[] b = Files.readAllBytes(f);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(b, 8));
        BufferedImage img = ImageIO.read(f.toFile());
        assertNotNull(img, "ImageIO cannot decode " + f);
        return img;
    }

    static Plot sample() {
        Plot p = new Plot("ib_write_bw (jrxe1, RC, MTU 4096)", "bandwidth [MB/sec]", "BW average", "BW peak");
        p.add(2, 0.5, 0.7);
        p.add(64, 15.25, 17.0);
        p.add(4096, 800.0, 910.5);
        p.add(65536, 1600.0, 0); // no peak measured: no point for it
        return p;
    }

    @Test
    void svgIsXmlAtTheChartSizeWithDrawing(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bw.svg");
        sample().write(f);
        Document d = assertSvg(f);
        assertEquals(Plot.WIDTH + "px", d.getDocumentElement().getAttribute("width"));
        assertEquals(Plot.HEIGHT + "px", d.getDocumentElement().getAttribute("height"));
        // axes, ticks, glyphs and the two series are paths
        assertTrue(d.getElementsByTagNameNS("http://www.w3.org/2000/svg", "path").getLength() > 20);
    }

    @Test
    void pngDecodesAtTheChartSize(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bw.PNG");
        sample().write(f);
        BufferedImage img = assertPng(f);
        assertEquals(Plot.WIDTH, img.getWidth());
        assertEquals(Plot.HEIGHT, img.getHeight());
    }

    @Test
    void formatByExtension() {
        assertEquals(Plot.Format.SVG, Plot.formatOf("a/b.SVG"));
        assertEquals(Plot.Format.PNG, Plot.formatOf("x.png"));
        assertThrows(IllegalArgumentException.class, () -> Plot.formatOf("x.pdf"));
    }

    @Test
    void nothingMeasuredIsAnError(@TempDir Path dir) {
        Plot p = new Plot("t", "y", "a");
        PerftestException e = assertThrows(PerftestException.class, () -> p.write(dir.resolve("e.svg")));
        assertTrue(e.getMessage().contains("nothing to plot"), e.getMessage());
        assertTrue(!Files.exists(dir.resolve("e.svg")), "no file for an empty chart");
    }

    @Test
    void badPlotFileIsAUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Tools.commandLine("ib_write_bw", Verb.WRITE, Params.Kind.BW, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true)).execute("-a", "--plot", "chart.pdf");
        assertEquals(Tools.EXIT_USAGE, rc);
        assertEquals("ib_write_bw: --plot file 'chart.pdf' must end in .svg or .png\n", err.toString(StandardCharsets.UTF_8));
    }
}
