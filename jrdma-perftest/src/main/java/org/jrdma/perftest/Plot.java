package org.jrdma.perftest;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code --plot FILE}: the results of a run (usually a size sweep, {@code -a}) as a chart of bandwidth
 * or latency versus message size, drawn with XChart ({@code org.knowm.xchart}). The file name decides
 * the format: {@code .svg} (vector, via VectorGraphics2D) or {@code .png} (bitmap). The x axis is the
 * message size in bytes on a log scale; one series per measured quantity.
 */
public final class Plot {
    /** Chart width, pixels. */
    static final int WIDTH = 900;
    /** Chart height, pixels. */
    static final int HEIGHT = 560;

    /** The image format of a file name. */
    public enum Format { SVG, PNG }

    private final String title;
    private final String yTitle;
    private final String[] series;
    private final List<Long> sizes = new ArrayList<>();
    private final List<double[]> values = new ArrayList<>();

    /**
     * @param title  chart title, e.g. "ib_write_bw (jrxe1, RC)"
     * @param yTitle y axis title with unit, e.g. "BW average [MB/sec]"
     * @param series one name per value of {@link #add}
     */
    public Plot(String title, String yTitle, String... series) {
        this.title = title;
        this.yTitle = yTitle;
        this.series = series.clone();
    }

    /**
     * The format of {@code file} by its extension (case-insensitive).
     *
     * @throws IllegalArgumentException when it is neither .svg nor .png
     */
    public static Format formatOf(String file) {
        String f = file.toLowerCase(Locale.ROOT);
        if (f.endsWith(".svg")) {
            return Format.SVG;
        }
        if (f.endsWith(".png")) {
            return Format.PNG;
        }
        throw new IllegalArgumentException("--plot file '" + file + "' must end in .svg or .png");
    }

    /** The plot of a perftest run's results: bandwidth (average, and peak when measured) or latency. */
    static Plot forRun(Params p, String device) {
        String t = p.tool + " (" + device + ", " + p.connection + ", MTU " + p.mtuBytes() + ")";
        if (p.kind == Params.Kind.BW) {
            String unit = p.reportGbits ? "Gb/sec" : "MB/sec";
            return new Plot(t, "bandwidth [" + unit + "]", "BW average", "BW peak");
        }
        String lat = p.rttFactor() == 1 ? "latency (round trip) [usec]" : "latency (RTT/2) [usec]";
        return new Plot(t, lat, "t_typical", "t_avg", "99% percentile");
    }

    /** Adds one x position (message size, bytes) with one value per series (NaN or ≤ 0: no point). */
    public void add(long size, double... v) {
        if (v.length != series.length) {
            throw new IllegalArgumentException(series.length + " values expected, got " + v.length);
        }
        sizes.add(size);
        values.add(v.clone());
    }

    /** Points added so far. */
    public int size() {
        return sizes.size();
    }

    /** The chart (headless AWT). */
    XYChart chart() {
        System.setProperty("java.awt.headless", "true");
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("message size [bytes]")
                .yAxisTitle(yTitle).build();
        Styler st = c.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideNW);
        st.setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setXAxisDecimalPattern("#");
        c.getStyler().setYAxisMin(0.0);
        for (int s = 0; s < series.length; s++) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int i = 0; i < sizes.size(); i++) {
                double y = values.get(i)[s];
                if (y > 0 && Double.isFinite(y)) {
                    xs.add((double) sizes.get(i));
                    ys.add(y);
                }
            }
            if (!xs.isEmpty()) {
                XYSeries xy = c.addSeries(series[s], xs, ys);
                xy.setMarker(SeriesMarkers.CIRCLE);
            }
        }
        return c;
    }

    /**
     * Writes the chart to {@code file} (format by extension), replacing it.
     *
     * @throws PerftestException when there is nothing to plot or the file cannot be written
     */
    public void write(Path file) {
        Format f;
        try {
            f = formatOf(file.toString());
        } catch (IllegalArgumentException e) {
            throw new PerftestException(e.getMessage());
        }
        XYChart c = chart();
        if (c.getSeriesMap().isEmpty()) {
            throw new PerftestException("nothing to plot into " + file + ": no result was measured on this side");
        }
        try (OutputStream o = Files.newOutputStream(file)) {
            if (f == Format.SVG) {
                VectorGraphicsEncoder.saveVectorGraphic(c, o, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            } else {
                BitmapEncoder.saveBitmap(c, o, BitmapEncoder.BitmapFormat.PNG);
            }
        } catch (IOException | RuntimeException e) {
            throw new PerftestException("cannot write the plot " + file + ": " + e.getMessage());
        }
    }
}
