package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a scrape keeps of each series' rendering and how it writes it again: a series the client's writer
 * rendered once shows each new value behind the writer's own line beginnings, byte for byte what the writer
 * makes of the registry's snapshots; a series gone from the hub is gone from the scrape and from what is
 * kept; what is kept follows the series the hub has.
 */
class RenderedSeriesTest {
    private static final ExpositionFormats WRITERS = ExpositionFormats.init();
    private static final String[] FORMATS = {"text/plain", "application/openmetrics-text; version=1.0.0"};
    private static final double[] AWKWARD = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0,
        1e-300, Double.MIN_VALUE, Double.MAX_VALUE, 1.0E21, 123456789.125, 0.1 + 0.2, -3, 4096, 1e7, 1e-3, 9.999999e6};

    private static Map<String, String> probe(String engine) {
        return new HashMap<>(Map.of(AttrKeys.ENGINE, engine, "tailwatch.scenario", "s", "gen_ai.operation.name", "chat",
                "gen_ai.provider.name", "ollama", "gen_ai.request.model", "m \"q\"", "server.address", "127.0.0.1",
                "server.port", "1"));
    }

    private static List<Point> gauges(double value, double total) {
        List<Point> points = new ArrayList<>();
        points.add(Point.of(EngineMetrics.MODEL_CONTEXT, value, AttrKeys.ENGINE, "e-1", AttrKeys.MODEL, "m\\1 \"x\" 2"));
        points.add(Point.of(EngineMetrics.MODEL_CONTEXT, 2048, AttrKeys.ENGINE, "e-2", AttrKeys.MODEL, "m2"));
        points.add(Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, "e-1"));
        points.add(Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, "e-1", AttrKeys.ENGINE_API, "ollama",
                AttrKeys.ENGINE_VERSION, "0.6"));
        points.add(Point.of(ProxyMetrics.REQUESTS, total, AttrValues.ProxyOutcome.OK, AttrKeys.ENGINE, "e-1", AttrKeys.LANE, "l"));
        return points;
    }

    /** The exposition without target_info, and what the client's writer makes of the whole registry: equal. */
    private static void assertWritersBytes(PrometheusExporter prom, String accept, String as) throws IOException {
        String streamed = prom.scrape(accept);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        WRITERS.findWriter(prom.contentType(accept)).write(whole, prom.registry().scrape());
        String body = streamed.substring(streamed.indexOf('\n', streamed.indexOf("target_info{")) + 1);
        assertThat(body).as(as).isEqualTo(whole.toString(StandardCharsets.UTF_8));
    }

    /**
     * After the first scrape no series is new: every later value (awkward doubles for a gauge and a counter,
     * a histogram recorded into, its maximum moving) is written behind the kept lines without the writer, and
     * each scrape is still, in both formats, the writer's rendering of the registry's snapshots.
     */
    @Test
    void aChangedValueIsWrittenBehindTheWritersLinesAsTheWriterWouldWriteIt() throws IOException {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "t"), false);
        hub.publish("p", gauges(4096, 1));
        hub.record(ProbeMetrics.OPERATION_DURATION, probe("e-1"), 0.25);
        hub.record(ProbeMetrics.OPERATION_DURATION, probe("e-2"), 0.5);
        RenderedChunks chunks = prom.chunks();
        assertWritersBytes(prom, FORMATS[0], "first");
        // 3 gauges, an info and a counter, 2 histogram series and their 2 maxima, the hub's dropped-series counter
        assertThat(chunks.renderedByWriter()).isEqualTo(10);
        assertThat(chunks.keptSeries()).isEqualTo(10);
        assertWritersBytes(prom, FORMATS[1], "first OpenMetrics"); // its HELP/TYPE/UNIT lines: one series a family
        long byWriter = chunks.renderedByWriter();
        long revalued = chunks.revalued();
        for (int round = 0; round < AWKWARD.length; round++) {
            double v = AWKWARD[round];
            hub.publish("p", gauges(v, 1 + round * 1e6 + 1.0 / 7)); // a counter takes no NaN
            hub.record(ProbeMetrics.OPERATION_DURATION, probe("e-1"), 1.0 + round + 1.0 / 3); // a new maximum each round
            for (String accept : FORMATS) {
                assertWritersBytes(prom, accept, "value " + v + ", " + accept);
            }
            assertThat(prom.scrape(null)).contains("} " + (v == Double.POSITIVE_INFINITY ? "+Inf" : v == Double.NEGATIVE_INFINITY
                    ? "-Inf" : Double.toString(v)) + "\n");
            assertThat(chunks.renderedByWriter()).as("round %d", round).isEqualTo(byWriter);
            assertThat(chunks.revalued()).as("round %d", round).isGreaterThan(revalued);
            revalued = chunks.revalued();
        }
        // The gauge, the counter, the histogram series and its maximum changed each round (the first round's
        // NaN gauge aside: its key is NaN's bits, new too), each written anew in three text and OpenMetrics scrapes.
        assertThat(revalued).isGreaterThanOrEqualTo(AWKWARD.length * 4L);
        assertThat(chunks.keptSeries()).isEqualTo(10);
    }

    /**
     * A series the producer no longer publishes, and a histogram series past its expiry, are gone from the
     * next scrape and from what is kept for the one after; a new series comes in rendered by the writer.
     */
    @Test
    void aSeriesGoneFromTheHubIsGoneFromTheScrapeAndFromWhatIsKept() throws IOException {
        SeriesBoundsTest.TestClock clock = new SeriesBoundsTest.TestClock();
        MetricHub hub = new MetricHub(clock, MetricHub.Limits.DEFAULT);
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of(), false);
        hub.publish("p", gauges(4096, 1));
        hub.record(ProbeMetrics.OPERATION_DURATION, probe("old"), 0.25);
        assertThat(prom.scrape(null)).contains("name=\"e-2\"").contains("name=\"old\"");
        assertThat(prom.chunks().keptSeries()).isEqualTo(8); // with the hub's dropped-series counter

        List<Point> fewer = gauges(8192, 2);
        fewer.remove(1); // e-2's context
        hub.publish("p", fewer);
        clock.advance(Duration.ofMinutes(21));
        hub.record(ProbeMetrics.OPERATION_DURATION, probe("new"), 0.5);
        String text = prom.scrape(null);
        assertThat(text).doesNotContain("e-2").doesNotContain("name=\"old\"").contains("name=\"new\"")
                .contains("{gen_ai_request_model=\"m\\\\1 \\\"x\\\" 2\",tailwatch_engine_name=\"e-1\"} 8192.0\n");
        assertThat(prom.chunks().keptSeries()).isEqualTo(7);
        for (String accept : FORMATS) {
            assertWritersBytes(prom, accept, accept);
        }
    }

    /**
     * A family whose series the hub holds in another order at every publication, with new values every other
     * round, and a series two producers publish: each scrape is still, in both formats, the writer's rendering of
     * the registry's snapshots (series in label order), written from what is kept: after the first scrape in
     * each format the writer renders no series.
     */
    @Test
    void theSeriesKeepTheirLabelOrderWhateverOrderTheHubHoldsThemIn() throws IOException {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of(), false);
        hub.publish("other", List.of(Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "e-3")));
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            at.add(i);
        }
        java.util.Random random = new java.util.Random(7);
        long byWriter = 0;
        for (int round = 0; round < 12; round++) {
            java.util.Collections.shuffle(at, random);
            List<Point> points = new ArrayList<>();
            for (int i : at) {
                points.add(Point.of(EngineMetrics.MODEL_CONTEXT, i + round / 2, AttrKeys.ENGINE, "e-" + i % 7, AttrKeys.MODEL, "m-" + i));
                points.add(Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, "e-" + i % 7));
            }
            hub.publish("p", points);
            for (String accept : FORMATS) {
                assertWritersBytes(prom, accept, "round " + round + ", " + accept);
            }
            if (round == 0) {
                byWriter = prom.chunks().renderedByWriter();
            }
        }
        assertThat(prom.chunks().renderedByWriter()).isEqualTo(byWriter);
        assertThat(prom.scrape(null).lines().filter(l -> l.startsWith("tailwatch_model_context_length{"))).hasSize(40)
                .isSortedAccordingTo(java.util.Comparator.comparing(l -> l.substring(0, l.lastIndexOf(' '))));
    }

    /**
     * A model that changes at every publication: what is kept of the renderings is the series the hub has at
     * each scrape (a series' labels are kept with it), however many have been seen.
     */
    @Test
    void whatIsKeptFollowsTheHubsSeries() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of(), false);
        int bound = 2 * MetricHub.DEFAULT_MAX_SERIES_PER_METRIC;
        for (int i = 0; i < bound + 300; i++) {
            List<Point> points = new ArrayList<>();
            for (int j = 0; j <= i % 3; j++) {
                points.add(Point.of(EngineMetrics.MODEL_CONTEXT, i, AttrKeys.ENGINE, "e", AttrKeys.MODEL, "model-" + i + "-" + j));
            }
            hub.publish("p", points);
            String text = prom.scrape(null);
            // and the hub's own tailwatch_series_dropped_total
            assertThat(prom.chunks().keptSeries()).as("scrape %d", i).isEqualTo(points.size() + 1);
            assertThat(text.lines().filter(l -> l.startsWith("tailwatch_model_context_length")).count()).isEqualTo(points.size());
        }
    }

    /**
     * Numbers formatted here are the client writers' own, in both formats: every awkward double, 50,000 random
     * bit patterns (NaNs, subnormals, both signs) and 50,000 random short decimals and whole numbers as a
     * gauge's value; histograms with random bucket counts (up to 10^12 each) and sums. So a changed series is
     * never sent back to the writer; a client version that formatted otherwise fails here, not in a scrape.
     */
    @Test
    void numbersAreFormattedAsTheClientsWritersFormatThem() throws IOException {
        java.util.Random random = new java.util.Random(40);
        List<Double> values = new ArrayList<>();
        for (double d : AWKWARD) {
            values.add(d);
            values.add(-d);
        }
        for (int i = 0; i < 50_000; i++) {
            values.add(Double.longBitsToDouble(random.nextLong()));
            double scale = Math.pow(10, random.nextInt(40) - 20);
            values.add(random.nextBoolean() ? Math.rint(random.nextDouble() * scale) : random.nextInt(100_000) / 1000.0 * scale);
        }
        double[] bounds = {0.005, 0.1, 1, 2.5, 60, Double.POSITIVE_INFINITY};
        for (String accept : FORMATS) {
            ExpositionFormatWriter writer = WRITERS.findWriter(accept);
            for (int from = 0; from < values.size(); from += 1000) {
                List<GaugeSnapshot.GaugeDataPointSnapshot> data = new ArrayList<>();
                List<long[]> samples = new ArrayList<>();
                for (int i = from; i < Math.min(values.size(), from + 1000); i++) {
                    data.add(new GaugeSnapshot.GaugeDataPointSnapshot(values.get(i), Labels.of("i", String.format("%06d", i)), null));
                    samples.add(new long[] {Double.doubleToRawLongBits(values.get(i))});
                }
                assertFormattedAsWritten(writer, new GaugeSnapshot(new MetricMetadata("g", "g"), data), HubCollector.Kind.GAUGE, samples);
            }
            List<HistogramSnapshot.HistogramDataPointSnapshot> data = new ArrayList<>();
            List<long[]> samples = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                long[] sample = new long[bounds.length + 1];
                for (int b = 0; b < bounds.length; b++) {
                    sample[b] = random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * Math.pow(10, random.nextInt(13)));
                }
                double sum = values.get(random.nextInt(values.size()));
                sample[bounds.length] = Double.doubleToRawLongBits(sum);
                data.add(new HistogramSnapshot.HistogramDataPointSnapshot(ClassicHistogramBuckets.of(bounds,
                        Arrays.copyOf(sample, bounds.length)), sum, Labels.of("i", String.format("%06d", i)), Exemplars.EMPTY, 0));
                samples.add(sample);
            }
            assertFormattedAsWritten(writer, new HistogramSnapshot(new MetricMetadata("h", "h"), data), HubCollector.Kind.HISTOGRAM, samples);
        }
    }

    /** The values of the writer's sample lines of {@code snapshot}, line by line, equal what is formatted here from {@code samples}. */
    private static void assertFormattedAsWritten(ExpositionFormatWriter writer, MetricSnapshot snapshot, HubCollector.Kind kind,
                                                 List<long[]> samples) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(out, new MetricSnapshots(snapshot));
        StringBuilder written = new StringBuilder();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.startsWith("#")) {
                written.append(line.substring(line.lastIndexOf(' ') + 1)).append('\n');
            }
        }
        RenderedChunks.Bytes formatted = new RenderedChunks.Bytes();
        for (long[] sample : samples) {
            RenderedChunks.format(kind, sample, formatted);
        }
        assertThat(new String(formatted.bytes, 0, formatted.size, StandardCharsets.US_ASCII)).as(writer.getContentType())
                .isEqualTo(written.toString());
    }
}
