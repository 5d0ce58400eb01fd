package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * New series reach the writer in batches (RenderedChunks.RENDER_LINES lines a call): families far over a batch,
 * rendered fresh, the other format rendered for the first time with no changed series, and a second wave of new
 * series of every family are each byte for byte what the client's writer renders of the same registry at once.
 */
class BatchedRenderTest {
    private static final ExpositionFormats W = ExpositionFormats.init();

    private static void same(PrometheusExporter prom, String accept, String as) throws Exception {
        String streamed = prom.scrape(accept);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        W.findWriter(prom.contentType(accept)).write(whole, prom.registry().scrape());
        String header = streamed.substring(0, streamed.indexOf('\n', streamed.indexOf("target_info{")) + 1);
        assertThat(streamed).as(as).isEqualTo(header + whole.toString(StandardCharsets.UTF_8));
    }

    private static MetricHub big(int n, String suffix) {
        MetricHub hub = new MetricHub(java.time.Clock.systemUTC(), new MetricHub.Limits(5000, 20000, 64L << 20,
                java.time.Duration.ofMinutes(20)));
        fill(hub, n, suffix);
        return hub;
    }

    private static void fill(MetricHub hub, int n, String suffix) {
        List<Point> points = new ArrayList<>();
        for (int e = 0; e < n; e++) {
            String engine = String.format("engine-%04d%s", e, suffix);
            points.add(Point.of(EngineMetrics.UP, e % 2, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, engine, AttrKeys.ENGINE_API, "ollama",
                    AttrKeys.ENGINE_VERSION, "0.6 \"rc\" \\ \n" + e));
            points.add(Point.of(EngineMetrics.MODEL_CONTEXT, e * 0.1, AttrKeys.ENGINE, engine, AttrKeys.MODEL, "m \"" + e));
            points.add(Point.of(ProbeMetrics.PROBES_SKIPPED, e, AttrKeys.ENGINE, engine, AttrKeys.SKIP_REASON, "in_flight"));
            Map<String, String> probe = new HashMap<>(Map.of(AttrKeys.ENGINE, engine, AttrKeys.SCENARIO, "s",
                    "gen_ai.operation.name", "chat", "gen_ai.provider.name", "ollama", AttrKeys.MODEL, "m" + e,
                    "server.address", "127.0.0.1", "server.port", "1"));
            hub.record(ProbeMetrics.OPERATION_DURATION, probe, 0.25 + e * 0.01);
            hub.record(ProbeMetrics.OPERATION_DURATION, probe, 1e9);
        }
        hub.publish("p" + suffix, points);
    }

    @Test
    void freshFamiliesOverTheBatchAreTheWritersBytesInBothFormats() throws Exception {
        for (String first : new String[] {"text/plain", "application/openmetrics-text; version=1.0.0"}) {
            MetricHub hub = big(1500, "");
            PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "t"), false);
            String other = first.startsWith("text") ? "application/openmetrics-text; version=1.0.0" : "text/plain";
            String firstBody = prom.scrape(first);
            assertThat(firstBody).contains("engine-1499");
            same(prom, first, "second " + first);
            same(prom, other, "other format first time (zero changed series), after " + first);
            // a whole new batch of series of every family, plus the old ones
            fill(hub, 1500, "b");
            same(prom, other, "new series, " + other);
            same(prom, first, "new series, " + first);
            same(prom, first, "again " + first);
        }
    }
}
