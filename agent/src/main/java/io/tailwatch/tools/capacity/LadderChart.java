package io.tailwatch.tools.capacity;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYPointerAnnotation;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * ladder.png, drawn to answer "where does this engine break?": concurrency on a log2 axis (1, 2, 4, 8
 * evenly spaced). Top panel: end-to-end p50/p95/p99 (p99 as a hollow square around the p95 dot, so
 * it stays visible when the two are equal), the stop threshold (p95 ratio x the first step's p95)
 * as a dashed line, the level whose stop rule tripped marked, and the errors of every level written
 * above it. Bottom panel: TTFT p95 (left axis) and aggregate output tokens/s (right axis). The
 * title names engine, model, host and date.
 */
public final class LadderChart {
    static final int WIDTH = 1000;
    static final int HEIGHT = 720;

    static final Color P50 = new Color(0x1f77b4);
    static final Color P95 = new Color(0xff7f0e);
    static final Color P99 = new Color(0x9467bd);
    static final Color STOP = new Color(0xd62728);
    static final Color TTFT = new Color(0x17becf);
    static final Color TPS = new Color(0x2ca02c);
    private static final Color LABEL_BACKGROUND = new Color(255, 255, 255, 220);

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private LadderChart() {
    }

    /** "Concurrency ladder: ENGINE · MODEL · HOST · DATE", leaving out what is unknown. */
    static String title(RunMetadata meta, LadderResult r) {
        List<String> parts = new ArrayList<>();
        if (meta != null) {
            add(parts, meta.engine());
            add(parts, meta.model());
            add(parts, meta.host());
        }
        java.time.Instant when = meta != null && meta.start() != null ? meta.start() : r.start();
        if (when != null) {
            parts.add(DATE.format(when));
        }
        return "Concurrency ladder" + (parts.isEmpty() ? "" : ": " + String.join(" \u00b7 ", parts));
    }

    /** The threshold the p95-ratio rule compares against: ratio x the first step's p95; NaN when unknown. */
    static double stopThreshold(LadderResult r) {
        LevelResult first = r.first();
        if (first == null || Double.isNaN(first.e2e().p95())) {
            return Double.NaN;
        }
        return r.options().rules().p95Ratio() * first.e2e().p95();
    }

    /** One sentence under the title: which rule stopped the ladder where, or that none did. */
    static String verdict(LadderResult r) {
        StopRules.Stop s = r.stop();
        if (s == null) {
            return r.levels().isEmpty() ? "no step ran" : "no stop rule tripped up to concurrency "
                    + r.levels().get(r.levels().size() - 1).concurrency();
        }
        return "stopped at concurrency " + s.level() + " by " + s.rule() + ": " + s.detail();
    }

    static JFreeChart chart(LadderResult r, RunMetadata meta) {
        System.setProperty("java.awt.headless", "true");
        XYSeries p50 = new XYSeries("e2e p50");
        XYSeries p95 = new XYSeries("e2e p95");
        XYSeries p99 = new XYSeries("e2e p99");
        XYSeries ttft = new XYSeries("TTFT p95");
        XYSeries tps = new XYSeries("output tok/s (all requests)");
        double top = 0;
        for (LevelResult l : r.levels()) {
            addIfKnown(p50, l.concurrency(), l.e2e().p50());
            addIfKnown(p95, l.concurrency(), l.e2e().p95());
            addIfKnown(p99, l.concurrency(), l.e2e().p99());
            addIfKnown(ttft, l.concurrency(), l.ttft().p95());
            addIfKnown(tps, l.concurrency(), l.outputTokensPerSecond());
            top = Math.max(top, known(l.e2e().p99(), known(l.e2e().p95(), 0)));
        }
        double threshold = stopThreshold(r);
        top = Math.max(top, known(threshold, 0));
        top = top > 0 ? top * 1.25 : 1;

        List<Integer> planned = r.options().levels();
        int minLevel = planned.isEmpty() ? 1 : planned.get(0);
        int maxLevel = planned.isEmpty() ? 1 : planned.get(planned.size() - 1);
        for (LevelResult l : r.levels()) {
            minLevel = Math.min(minLevel, l.concurrency());
            maxLevel = Math.max(maxLevel, l.concurrency());
        }
        LogAxis x = new LogAxis("concurrency (requests in flight, log2 scale)");
        x.setBase(2);
        x.setAutoTickUnitSelection(false);
        x.setTickUnit(new NumberTickUnit(1));
        x.setNumberFormatOverride(new DecimalFormat("0"));
        x.setSmallestValue(0.5);
        x.setRange(minLevel / 1.5, maxLevel * 1.5);

        // Top: end-to-end latency.
        XYSeriesCollection latency = new XYSeriesCollection();
        latency.addSeries(p50);
        latency.addSeries(p95);
        latency.addSeries(p99);
        NumberAxis latencyAxis = new NumberAxis("end-to-end latency (s)");
        latencyAxis.setRange(0, top);
        XYLineAndShapeRenderer lr = new XYLineAndShapeRenderer(true, true);
        lr.setSeriesPaint(0, P50);
        lr.setSeriesShape(0, new Ellipse2D.Double(-3, -3, 6, 6));
        lr.setSeriesStroke(0, new BasicStroke(2f));
        lr.setSeriesPaint(1, P95);
        lr.setSeriesShape(1, new Ellipse2D.Double(-4, -4, 8, 8));
        lr.setSeriesStroke(1, new BasicStroke(2.5f));
        // p99: a hollow square around the point and a thin dashed line, visible on top of an equal p95.
        lr.setSeriesPaint(2, P99);
        lr.setSeriesShape(2, new Rectangle2D.Double(-7, -7, 14, 14));
        lr.setSeriesShapesFilled(2, false);
        lr.setSeriesOutlinePaint(2, P99);
        lr.setUseOutlinePaint(false);
        lr.setSeriesStroke(2, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                new float[] {5f, 4f}, 0f));
        XYPlot latencyPlot = new XYPlot(latency, null, latencyAxis, lr);
        style(latencyPlot);

        if (!Double.isNaN(threshold)) {
            ValueMarker line = new ValueMarker(threshold, STOP, new BasicStroke(1.5f, BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 5f}, 0f));
            LevelResult first = r.first();
            line.setLabel(String.format(Locale.ROOT, "stop line %s s = %s x the concurrency-%d p95",
                    f2(threshold), trim(r.options().rules().p95Ratio()), first.concurrency()));
            line.setLabelBackgroundColor(LABEL_BACKGROUND);
            line.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            line.setLabelPaint(STOP);
            line.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            line.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
            latencyPlot.addRangeMarker(line, Layer.BACKGROUND);
        }
        for (StopRules.Stop stop : r.tripped()) {
            if (stop.level() <= 0) {
                continue;
            }
            ValueMarker at = new ValueMarker(stop.level(), new Color(0xd6, 0x27, 0x28, 60), new BasicStroke(18f));
            at.setLabel((StopRules.INTERRUPTED.equals(stop.rule()) ? "" : "tripped: ") + stop.rule());
            at.setLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            at.setLabelBackgroundColor(LABEL_BACKGROUND);
            at.setLabelPaint(STOP);
            boolean last = stop.level() >= maxLevel;
            at.setLabelAnchor(last ? RectangleAnchor.BOTTOM_LEFT : RectangleAnchor.BOTTOM_RIGHT);
            at.setLabelTextAnchor(last ? TextAnchor.BOTTOM_RIGHT : TextAnchor.BOTTOM_LEFT);
            latencyPlot.addDomainMarker(at, Layer.BACKGROUND);
        }
        // Every level whose p95 reaches the stop line is pointed at (the p95 rule's own condition, whichever rule
        // was reported first at that level).
        for (LevelResult l : r.levels()) {
            double p = l.e2e().p95();
            if (!Double.isNaN(threshold) && !Double.isNaN(p) && p >= threshold && r.first() != null && l != r.first()) {
                XYPointerAnnotation arrow = new XYPointerAnnotation(String.format(Locale.ROOT, "p95 %s s = %sx",
                        f2(p), trim(StopRules.round2(p / r.first().e2e().p95()))), l.concurrency(), p, Math.PI * 0.75);
                arrow.setPaint(STOP);
                arrow.setArrowPaint(STOP);
                arrow.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
                arrow.setTextAnchor(TextAnchor.BOTTOM_RIGHT);
                latencyPlot.addAnnotation(arrow);
            }
        }
        // Errors per level, written at the top of the panel; planned levels that did not run say so.
        for (int c : planned) {
            LevelResult l = level(r, c);
            String text;
            Color paint;
            if (l == null) {
                text = "not run";
                paint = Color.GRAY;
            } else if (l.errors() > 0) {
                text = String.format(Locale.ROOT, "%d/%d errors", l.errors(), l.requests());
                paint = STOP;
            } else {
                text = "0 errors";
                paint = Color.GRAY;
            }
            XYTextAnnotation a = new XYTextAnnotation(text, c, top * 0.96);
            a.setPaint(paint);
            a.setFont(new Font(Font.SANS_SERIF, l != null && l.errors() > 0 ? Font.BOLD : Font.PLAIN, 12));
            a.setTextAnchor(TextAnchor.TOP_CENTER);
            latencyPlot.addAnnotation(a);
        }

        // Bottom: TTFT p95 (left) and throughput (right), on their own axes.
        NumberAxis ttftAxis = new NumberAxis("TTFT p95 (s)");
        ttftAxis.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer tr = new XYLineAndShapeRenderer(true, true);
        tr.setSeriesPaint(0, TTFT);
        tr.setSeriesStroke(0, new BasicStroke(2f));
        tr.setSeriesShape(0, new Ellipse2D.Double(-4, -4, 8, 8));
        XYPlot lower = new XYPlot(new XYSeriesCollection(ttft), null, ttftAxis, tr);
        NumberAxis tpsAxis = new NumberAxis("output tok/s");
        tpsAxis.setAutoRangeIncludesZero(true);
        lower.setRangeAxis(1, tpsAxis);
        lower.setDataset(1, new XYSeriesCollection(tps));
        lower.mapDatasetToRangeAxis(1, 1);
        XYLineAndShapeRenderer pr = new XYLineAndShapeRenderer(true, true);
        pr.setSeriesPaint(0, TPS);
        pr.setSeriesShape(0, new Rectangle2D.Double(-4, -4, 8, 8));
        pr.setSeriesStroke(0, new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
                new float[] {6f, 4f}, 0f));
        lower.setRenderer(1, pr);
        style(lower);

        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
        plot.setGap(12);
        plot.add(latencyPlot, 3);
        plot.add(lower, 2);
        JFreeChart chart = new JFreeChart(title(meta, r), new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
        chart.addSubtitle(new TextTitle(verdict(r), new Font(Font.SANS_SERIF, Font.PLAIN, 13)));
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    static byte[] png(LadderResult r, RunMetadata meta) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(out, chart(r, meta), WIDTH, HEIGHT);
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

    static void write(Path file, LadderResult r, RunMetadata meta) throws IOException {
        ReportFiles.writeAtomically(file, png(r, meta));
    }

    private static void style(XYPlot p) {
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(Color.LIGHT_GRAY);
        p.setRangeGridlinePaint(Color.LIGHT_GRAY);
        p.setDomainGridlinesVisible(true);
    }

    private static LevelResult level(LadderResult r, int concurrency) {
        for (LevelResult l : r.levels()) {
            if (l.concurrency() == concurrency) {
                return l;
            }
        }
        return null;
    }

    private static void add(List<String> parts, String v) {
        if (v != null && !v.isBlank()) {
            parts.add(v);
        }
    }

    private static double known(double v, double otherwise) {
        return Double.isNaN(v) || Double.isInfinite(v) ? otherwise : v;
    }

    private static void addIfKnown(XYSeries s, int x, double y) {
        if (!Double.isNaN(y) && !Double.isInfinite(y)) {
            s.add(x, y);
        }
    }

    private static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
