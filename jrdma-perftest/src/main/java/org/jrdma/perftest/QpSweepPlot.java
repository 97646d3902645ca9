package org.jrdma.perftest;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma plot-qp-sweep CSV SVG} (issue 14, {@code bench/qp-sweep --plot}): the many-QPs sweep
 * as an SVG chart drawn with XChart: aggregate bandwidth (Gbit/s, left axis) and memory per QP
 * (KiB of heap and of native memory, right axis) against the number of QPs (log scale). The CSV has
 * a header line and then {@code qps,gbits,heap_kib_per_qp,native_kib_per_qp} per point; a field that
 * is not a number (e.g. {@code n/a}) leaves that point out of its series. Exit status 0, or 1 with a
 * message when the CSV cannot be read or holds no point.
 */
@Command(name = "plot-qp-sweep", description = "Plot a bench/qp-sweep CSV (qps,gbits,heap_kib_per_qp,native_kib_per_qp)"
        + " as an SVG chart.")
public final class QpSweepPlot implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CSV", description = "the sweep's CSV")
    Path csv;

    @Parameters(index = "1", paramLabel = "SVG", description = "the chart to write")
    Path svg;

    private final PrintStream err;

    public QpSweepPlot(PrintStream err) {
        this.err = err;
    }

    @Override
    public Integer call() {
        List<String> lines;
        try {
            lines = Files.readAllLines(csv);
        } catch (IOException e) {
            err.println("plot-qp-sweep: cannot read " + csv + ": " + e.getMessage());
            return 1;
        }
        String[] names = {"aggregate bandwidth [Gbit/s]", "heap per QP [KiB]", "native per QP [KiB]"};
        List<List<Double>> xs = new ArrayList<>(), ys = new ArrayList<>();
        for (int s = 0; s < names.length; s++) {
            xs.add(new ArrayList<>());
            ys.add(new ArrayList<>());
        }
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length < 4) {
                continue;
            }
            double qps = number(f[0]);
            for (int s = 0; s < names.length; s++) {
                double v = number(f[s + 1]);
                if (qps > 0 && v >= 0) {
                    xs.get(s).add(qps);
                    ys.get(s).add(v);
                }
            }
        }
        System.setProperty("java.awt.headless", "true");
        XYChart c = new XYChartBuilder().width(Plot.WIDTH).height(Plot.HEIGHT)
                .title("ib_write_bw -q N on loopback: bandwidth and memory per QP").xAxisTitle("QPs").build();
        Styler st = c.getStyler();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setXAxisDecimalPattern("#");
        c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        c.getStyler().setYAxisMin(0, 0.0);
        c.getStyler().setYAxisMin(1, 0.0);
        c.setYAxisGroupTitle(0, "Gbit/s");
        c.setYAxisGroupTitle(1, "KiB per QP");
        st.setLegendPosition(Styler.LegendPosition.InsideNE);
        st.setChartBackgroundColor(java.awt.Color.WHITE);
        for (int s = 0; s < names.length; s++) {
            if (!xs.get(s).isEmpty()) {
                XYSeries xy = c.addSeries(names[s], xs.get(s), ys.get(s));
                xy.setMarker(SeriesMarkers.CIRCLE);
                xy.setYAxisGroup(s == 0 ? 0 : 1);
            }
        }
        if (c.getSeriesMap().isEmpty()) {
            err.println("plot-qp-sweep: no point in " + csv);
            return 1;
        }
        try (OutputStream o = Files.newOutputStream(svg)) {
            VectorGraphicsEncoder.saveVectorGraphic(c, o, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException | RuntimeException e) {
            err.println("plot-qp-sweep: cannot write " + svg + ": " + e.getMessage());
            return 1;
        }
        return 0;
    }

    private static double number(String s) {
        try {
            return Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
