package io.tailwatch.capacity;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** ladder.png: end-to-end p50/p95/p99 (left axis) and aggregate output tokens/s (right axis) against concurrency. */
public final class LadderChart {
    static final int WIDTH = 900;
    static final int HEIGHT = 540;

    private LadderChart() {
    }

    static byte[] png(LadderResult r, String title) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeries p50 = new XYSeries("p50 latency (s)");
        XYSeries p95 = new XYSeries("p95 latency (s)");
        XYSeries p99 = new XYSeries("p99 latency (s)");
        XYSeries tps = new XYSeries("output tokens/s (all requests)");
        for (LevelResult l : r.levels()) {
            addIfKnown(p50, l.concurrency(), l.e2e().p50());
            addIfKnown(p95, l.concurrency(), l.e2e().p95());
            addIfKnown(p99, l.concurrency(), l.e2e().p99());
            addIfKnown(tps, l.concurrency(), l.outputTokensPerSecond());
        }
        XYSeriesCollection latency = new XYSeriesCollection();
        latency.addSeries(p50);
        latency.addSeries(p95);
        latency.addSeries(p99);
        XYSeriesCollection throughput = new XYSeriesCollection(tps);

        NumberAxis x = new NumberAxis("concurrency");
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        NumberAxis left = new NumberAxis("end-to-end latency (s)");
        NumberAxis right = new NumberAxis("output tokens/s");
        XYLineAndShapeRenderer latencyRenderer = new XYLineAndShapeRenderer(true, true);
        latencyRenderer.setSeriesPaint(0, new Color(0x1f77b4));
        latencyRenderer.setSeriesPaint(1, new Color(0xff7f0e));
        latencyRenderer.setSeriesPaint(2, new Color(0xd62728));
        XYLineAndShapeRenderer tpsRenderer = new XYLineAndShapeRenderer(true, true);
        tpsRenderer.setSeriesPaint(0, new Color(0x2ca02c));
        tpsRenderer.setSeriesStroke(0, new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
                new float[] {6f, 4f}, 0f));

        XYPlot plot = new XYPlot(latency, x, left, latencyRenderer);
        plot.setOrientation(PlotOrientation.VERTICAL);
        plot.setRangeAxis(1, right);
        plot.setDataset(1, throughput);
        plot.mapDatasetToRangeAxis(1, 1);
        plot.setRenderer(1, tpsRenderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(out, chart, WIDTH, HEIGHT);
        return out.toByteArray();
    }

    /**
     * Renders a throw-away chart once. Java2D and its font manager register JVM shutdown hooks when
     * first used, which is refused once shutdown has begun; rendering early lets the Ctrl-C path
     * still draw the partial report's chart.
     */
    public static void warmUp() {
        try {
            XYSeriesCollection data = new XYSeriesCollection(new XYSeries("warm-up"));
            JFreeChart chart = org.jfree.chart.ChartFactory.createXYLineChart("warm-up", "x", "y", data);
            ChartUtils.writeChartAsPNG(new ByteArrayOutputStream(), chart, 64, 48);
        } catch (IOException | RuntimeException e) {
            // The chart is optional; the report files are written without it if drawing fails later.
        }
    }

    static void write(Path file, LadderResult r, String title) throws IOException {
        ReportFiles.writeAtomically(file, png(r, title));
    }

    private static void addIfKnown(XYSeries s, int x, double y) {
        if (!Double.isNaN(y) && !Double.isInfinite(y)) {
            s.add(x, y);
        }
    }
}
