package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.DoubleStream;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYAnnotation;
import org.jfree.chart.annotations.XYPointerAnnotation;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.Marker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;

/** Structural checks on ladder.png: what the chart shows, not how its pixels happen to fall. */
class LadderChartTest {
    /** The worked example: level 1 clean (p95 3.67 s), level 2 p95 = p99 = 35.01 s trips the 3x rule; 4 and 8 never run. */
    static LadderResult stoppedAtTwo() {
        ScriptedEngine engine = new ScriptedEngine().ok(3.5).ok(LadderTest.N1).ok(LadderTest.N2);
        return new Ladder(engine, () -> LadderTest.host(0, 0), HealthCheck.NONE,
                LadderTest.options(List.of(1, 2, 4, 8), null, false), Clock.systemUTC())
                .run(LadderTest.host(0, 0), new Ladder.Listener() { });
    }

    @Test
    void title_axes_series_threshold_and_stop_mark() {
        LadderResult r = stoppedAtTwo();
        JFreeChart chart = LadderChart.chart(r, LadderReportTest.meta());

        assertThat(chart.getTitle().getText())
                .isEqualTo("Concurrency ladder: mlx \u00b7 gemma-4-26b-8bit \u00b7 studio-1 \u00b7 2026-11-30 01:00 UTC");
        assertThat(((TextTitle) chart.getSubtitle(1)).getText()).startsWith("stopped at concurrency 2 by p95_ratio");

        CombinedDomainXYPlot plot = (CombinedDomainXYPlot) chart.getPlot();
        LogAxis x = (LogAxis) plot.getDomainAxis();
        assertThat(x.getBase()).isEqualTo(2.0);
        // Log2: 1 -> 2 -> 4 -> 8 are evenly spaced.
        Rectangle2D area = new Rectangle2D.Double(0, 0, 800, 400);
        double x1 = x.valueToJava2D(1, area, RectangleEdge.BOTTOM);
        double x2 = x.valueToJava2D(2, area, RectangleEdge.BOTTOM);
        double x4 = x.valueToJava2D(4, area, RectangleEdge.BOTTOM);
        double x8 = x.valueToJava2D(8, area, RectangleEdge.BOTTOM);
        assertThat(x2 - x1).isCloseTo(x4 - x2, within(1e-6)).isCloseTo(x8 - x4, within(1e-6)).isPositive();
        assertThat(x.isTickLabelsVisible()).isTrue();

        List<XYPlot> panels = plot.getSubplots();
        assertThat(panels).hasSize(2);
        XYPlot latency = panels.get(0);
        XYDataset e2e = latency.getDataset();
        assertThat(seriesKeys(e2e)).containsExactly("e2e p50", "e2e p95", "e2e p99");
        assertThat(y(e2e, 1, 0)).isEqualTo(3.67);
        assertThat(y(e2e, 1, 1)).isEqualTo(35.01);
        assertThat(y(e2e, 2, 1)).isEqualTo(35.01); // p99 = p95 at level 2 ...
        XYLineAndShapeRenderer lr = (XYLineAndShapeRenderer) latency.getRenderer();
        // ... and still visible: a hollow marker larger than the p95 dot, in its own colour.
        assertThat(lr.getSeriesShapesFilled(2)).isFalse();
        assertThat(lr.getSeriesShape(2).getBounds2D().getWidth()).isGreaterThan(lr.getSeriesShape(1).getBounds2D().getWidth() + 4);
        assertThat(lr.getSeriesPaint(2)).isNotEqualTo(lr.getSeriesPaint(1));

        // The stop line at 3 x the level-1 p95, and the level that tripped it.
        List<Double> lines = markers(latency.getRangeMarkers(Layer.BACKGROUND));
        assertThat(lines).singleElement().satisfies(v -> assertThat(v).isCloseTo(3 * 3.67, within(1e-9)));
        assertThat(markers(latency.getDomainMarkers(Layer.BACKGROUND))).containsExactly(2.0);
        assertThat(latency.getAnnotations()).filteredOn(a -> a instanceof XYPointerAnnotation)
                .singleElement().satisfies(a -> {
                    XYPointerAnnotation p = (XYPointerAnnotation) a;
                    assertThat(p.getX()).isEqualTo(2);
                    assertThat(p.getY()).isEqualTo(35.01);
                    assertThat(p.getText()).isEqualTo("p95 35.01 s = 9.54x");
                });
        // Errors per planned level; the levels that never ran say so.
        assertThat(texts(latency)).containsExactly("1: 0 errors", "2: 0 errors", "4: not run", "8: not run");

        // TTFT and throughput on their own panel, each on its own axis.
        XYPlot lower = panels.get(1);
        assertThat(lower.getRangeAxisCount()).isEqualTo(2);
        assertThat(lower.getRangeAxis(0).getLabel()).isEqualTo("TTFT p95 (s)");
        assertThat(lower.getRangeAxis(1).getLabel()).isEqualTo("output tok/s");
        assertThat(seriesKeys(lower.getDataset(0))).containsExactly("TTFT p95");
        assertThat(seriesKeys(lower.getDataset(1))).containsExactly("output tok/s (all requests)");
        assertThat(lower.getDataset(0).getItemCount(0)).isEqualTo(2);
        assertThat(lower.getRangeAxisIndex(lower.getRangeAxis(1))).isEqualTo(1);
        assertThat(lower.getRangeAxisForDataset(1)).isSameAs(lower.getRangeAxis(1));
    }

    @Test
    void errors_are_marked_at_their_level_and_every_tripped_rule_is_marked() {
        // --continue: level 2 trips p95_ratio, level 4 has 2 failures of 12 and trips error_rate.
        ScriptedEngine engine = new ScriptedEngine().ok(3.5).ok(LadderTest.N1).ok(LadderTest.N2)
                .ok(DoubleStream.generate(() -> 9.0).limit(10).toArray()).fail("http_500", 2);
        LadderResult r = new Ladder(engine, () -> LadderTest.host(0, 0), HealthCheck.NONE,
                LadderTest.options(List.of(1, 2, 4), null, true), Clock.systemUTC())
                .run(LadderTest.host(0, 0), new Ladder.Listener() { });
        XYPlot latency = ((CombinedDomainXYPlot) LadderChart.chart(r, LadderReportTest.meta()).getPlot()).getSubplots().get(0);
        assertThat(texts(latency)).containsExactly("1: 0 errors", "2: 0 errors", "4: 2/12 errors");
        XYTextAnnotation four = (XYTextAnnotation) latency.getAnnotations().stream()
                .filter(a -> a instanceof XYTextAnnotation t && t.getX() == 4).findFirst().orElseThrow();
        assertThat(four.getPaint()).isEqualTo(LadderChart.STOP);
        assertThat(markers(latency.getDomainMarkers(Layer.BACKGROUND))).containsExactly(2.0, 4.0);
    }

    @Test
    void the_rendered_png_shows_p99_around_an_equal_p95_and_the_stop_line() throws Exception {
        LadderResult r = stoppedAtTwo();
        JFreeChart chart = LadderChart.chart(r, LadderReportTest.meta());
        ChartRenderingInfo info = new ChartRenderingInfo();
        BufferedImage img = chart.createBufferedImage(LadderChart.WIDTH, LadderChart.HEIGHT, info);
        CombinedDomainXYPlot plot = (CombinedDomainXYPlot) chart.getPlot();
        XYPlot latency = plot.getSubplots().get(0);
        Rectangle2D area = info.getPlotInfo().getSubplotInfo(0).getDataArea();
        int px = (int) Math.round(plot.getDomainAxis().valueToJava2D(2, area, plot.getDomainAxisEdge()));
        int py = (int) Math.round(latency.getRangeAxis().valueToJava2D(35.01, area, latency.getRangeAxisEdge()));
        // The p99 square's edge (7 px from the centre) shows in the p99 colour around the p95 dot.
        assertThat(countNear(img, px, py, 9, LadderChart.P99)).as("p99 pixels around (%d,%d)", px, py).isGreaterThan(10);
        assertThat(countNear(img, px, py, 3, LadderChart.P95)).as("p95 dot").isGreaterThan(5);
        int ly = (int) Math.round(latency.getRangeAxis().valueToJava2D(3 * 3.67, area, latency.getRangeAxisEdge()));
        int red = 0;
        for (int xx = (int) area.getMinX() + 400; xx < area.getMaxX(); xx++) {
            for (int dy = -1; dy <= 1; dy++) {
                red += close(img.getRGB(xx, ly + dy), LadderChart.STOP) ? 1 : 0;
            }
        }
        assertThat(red).as("dashed stop line pixels").isGreaterThan(100);
        // And the file written is that picture.
        BufferedImage png = ImageIO.read(new ByteArrayInputStream(LadderChart.png(r, LadderReportTest.meta())));
        assertThat(png.getWidth()).isEqualTo(LadderChart.WIDTH);
        assertThat(png.getRGB(px, py)).isEqualTo(img.getRGB(px, py));
    }

    private static int countNear(BufferedImage img, int cx, int cy, int radius, Color c) {
        int n = 0;
        for (int x = cx - radius; x <= cx + radius; x++) {
            for (int y = cy - radius; y <= cy + radius; y++) {
                n += close(img.getRGB(x, y), c) ? 1 : 0;
            }
        }
        return n;
    }

    private static boolean close(int rgb, Color c) {
        Color p = new Color(rgb);
        return Math.abs(p.getRed() - c.getRed()) < 40 && Math.abs(p.getGreen() - c.getGreen()) < 40
                && Math.abs(p.getBlue() - c.getBlue()) < 40;
    }

    private static List<String> seriesKeys(XYDataset d) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.getSeriesCount(); i++) {
            out.add(String.valueOf(d.getSeriesKey(i)));
        }
        return out;
    }

    private static double y(XYDataset d, int series, int item) {
        return d.getYValue(series, item);
    }

    private static List<Double> markers(java.util.Collection<?> ms) {
        List<Double> out = new ArrayList<>();
        if (ms != null) {
            for (Object m : ms) {
                out.add(((ValueMarker) (Marker) m).getValue());
            }
        }
        return out;
    }

    private static List<String> texts(XYPlot p) {
        List<String> out = new ArrayList<>();
        for (XYAnnotation a : p.getAnnotations()) {
            if (a instanceof XYTextAnnotation t && !(a instanceof XYPointerAnnotation)) {
                out.add((int) t.getX() + ": " + t.getText());
            }
        }
        return out;
    }
}
