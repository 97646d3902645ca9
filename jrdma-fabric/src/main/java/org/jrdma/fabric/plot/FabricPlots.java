package org.jrdma.fabric.plot;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * SVG plots of a run, drawn from the files it wrote into its output directory (so they can be
 * redrawn from any earlier run) with XChart, as jrdma-perftest's {@code Plot}:
 * <ul>
 * <li>{@code rate.svg}: DCQCN rate and goodput per flow over time ({@code rate.txt}; the first
 *     {@value #MAX_SERIES} flows);</li>
 * <li>{@code queue.svg}: egress bytes over time of the busiest switch ports ({@code queue.txt});</li>
 * <li>{@code pause.svg}: PFC pause state over time, one step line per paused port
 *     ({@code pfc.txt}: 1 while paused);</li>
 * <li>{@code fct-slowdown.svg}: the CDF of FCT slowdown (fct / standalone fct, floored at 1, as
 *     HPCC's {@code fct_analysis.py}; {@code fct.txt}).</li>
 * </ul>
 * A plot whose file has no data is not written. Each series keeps at most {@value #MAX_POINTS}
 * points (every k-th sample). Caller's thread; headless AWT.
 */
public final class FabricPlots {
    /** Most series per plot. */
    static final int MAX_SERIES = 16;
    /** Most points per series. */
    static final int MAX_POINTS = 2000;
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    private FabricPlots() {
    }

    /** Writes every plot that has data into {@code dir}; returns the files written. */
    public static List<Path> write(Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Path> written = new ArrayList<>();
        save(rate(dir), dir.resolve("rate.svg"), written);
        save(queue(dir), dir.resolve("queue.svg"), written);
        save(pause(dir), dir.resolve("pause.svg"), written);
        save(slowdown(dir), dir.resolve("fct-slowdown.svg"), written);
        return written;
    }

    private static void save(XYChart c, Path file, List<Path> written) throws IOException {
        if (c == null || c.getSeriesMap().isEmpty()) {
            return;
        }
        try (OutputStream o = Files.newOutputStream(file)) {
            VectorGraphicsEncoder.saveVectorGraphic(c, o, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        }
        written.add(file);
    }

    private static List<long[]> rows(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<long[]> out = new ArrayList<>();
        boolean hex = file.getFileName().toString().equals("fct.txt");
        for (String l : Files.readAllLines(file)) {
            String[] w = l.trim().split(" ");
            if (w.length < 2 || l.startsWith("time")) {
                continue;
            }
            long[] r = new long[w.length];
            for (int i = 0; i < w.length; i++) {
                r[i] = Long.parseLong(w[i], hex && i < 2 ? 16 : 10);
            }
            out.add(r);
        }
        return out;
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle(y).build();
        Styler st = c.getStyler();
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setChartBackgroundColor(java.awt.Color.WHITE);
        return c;
    }

    private static void add(XYChart c, String name, List<Double> xs, List<Double> ys, boolean step) {
        if (xs.isEmpty()) {
            return;
        }
        int k = Math.max(1, (xs.size() + MAX_POINTS - 1) / MAX_POINTS);
        List<Double> sx = new ArrayList<>();
        List<Double> sy = new ArrayList<>();
        for (int i = 0; i < xs.size(); i += k) {
            sx.add(xs.get(i));
            sy.add(ys.get(i));
        }
        XYSeries s = c.addSeries(name, sx, sy);
        s.setMarker(SeriesMarkers.NONE);
        if (step) {
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
        }
    }

    /** Per flow: DCQCN rate and goodput, Gbit/s, against ms. */
    static XYChart rate(Path dir) throws IOException {
        Map<Long, List<long[]>> byFlow = new TreeMap<>();
        for (long[] r : rows(dir.resolve("rate.txt"))) {
            if (r[1] < MAX_SERIES) {
                byFlow.computeIfAbsent(r[1], x -> new ArrayList<>()).add(r);
            }
        }
        XYChart c = chart("Rate per flow", "time [ms]", "rate [Gbit/s]");
        for (Map.Entry<Long, List<long[]>> e : byFlow.entrySet()) {
            List<Double> t = new ArrayList<>();
            List<Double> rate = new ArrayList<>();
            List<Double> good = new ArrayList<>();
            for (long[] r : e.getValue()) {
                t.add(r[0] / 1e6);
                rate.add(r[2] / 1e9);
                good.add(r[3] / 1e9);
            }
            add(c, "flow " + e.getKey() + " rate", t, rate, false);
            add(c, "flow " + e.getKey() + " goodput", t, good, false);
        }
        return c;
    }

    /** The busiest switch ports' egress queue, KB, against ms. */
    static XYChart queue(Path dir) throws IOException {
        Map<String, List<long[]>> byPort = new TreeMap<>();
        Map<String, Long> peak = new TreeMap<>();
        for (long[] r : rows(dir.resolve("queue.txt"))) {
            String k = "node " + r[1] + " if " + r[2];
            byPort.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
            peak.merge(k, r[3], Math::max);
        }
        List<String> top = peak.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(MAX_SERIES / 2).map(Map.Entry::getKey).sorted().toList();
        XYChart c = chart("Switch egress queues", "time [ms]", "queue [KB]");
        for (String k : top) {
            List<Double> t = new ArrayList<>();
            List<Double> q = new ArrayList<>();
            for (long[] r : byPort.get(k)) {
                t.add(r[0] / 1e6);
                q.add(r[3] / 1e3);
            }
            add(c, k, t, q, false);
        }
        return c;
    }

    /** Pause state per paused port (offset by its rank so lines do not overlap), against ms. */
    static XYChart pause(Path dir) throws IOException {
        Map<String, List<long[]>> byPort = new TreeMap<>();
        for (long[] r : rows(dir.resolve("pfc.txt"))) {
            byPort.computeIfAbsent("node " + r[1] + " if " + r[3], x -> new ArrayList<>()).add(r);
        }
        XYChart c = chart("PFC pause state (1 = paused; port n drawn at 2n)", "time [ms]", "paused");
        int rank = 0;
        for (Map.Entry<String, List<long[]>> e : byPort.entrySet()) {
            if (rank == MAX_SERIES) {
                break;
            }
            List<Double> t = new ArrayList<>();
            List<Double> v = new ArrayList<>();
            t.add(0.0);
            v.add(2.0 * rank);
            for (long[] r : e.getValue()) {
                t.add(r[0] / 1e6);
                v.add(2.0 * rank + r[4]);
            }
            add(c, e.getKey(), t, v, true);
            rank++;
        }
        return c;
    }

    /** CDF of FCT slowdown (floored at 1). */
    static XYChart slowdown(Path dir) throws IOException {
        List<Double> s = new ArrayList<>();
        for (long[] r : rows(dir.resolve("fct.txt"))) {
            s.add(Math.max(1.0, (double) r[6] / Math.max(1, r[7])));
        }
        if (s.isEmpty()) {
            return null;
        }
        s.sort(null);
        List<Double> y = new ArrayList<>();
        for (int i = 0; i < s.size(); i++) {
            y.add((i + 1.0) / s.size());
        }
        XYChart c = chart("FCT slowdown CDF (" + s.size() + " flows)", "slowdown (fct / standalone fct)", "CDF");
        add(c, "all flows", s, y, true);
        return c;
    }
}
