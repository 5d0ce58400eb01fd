package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The exposition streamed family by family is the one a single registry rendered, and it never is held whole. */
class StreamedExpositionTest {
    private static PrometheusExporter liveShaped(int engines) {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "golden \"host\""), false);
        LiveShapedHub.fill(hub, engines);
        return prom;
    }

    private static String golden(String name) throws Exception {
        return new String(StreamedExpositionTest.class.getResourceAsStream("/exposition/" + name).readAllBytes(),
                StandardCharsets.UTF_8);
    }

    /**
     * The expected files were rendered from the same hub when the exporter kept every meter in one
     * Micrometer registry and returned the exposition as one String: the output rendered from the hub is
     * that output byte for byte (family order, HELP/TYPE, escaping, target_info, the single # EOF), with the
     * OpenMetrics {@code # UNIT} line added since wherever a family's name ends with its unit.
     */
    @Test
    void theStreamedBodyIsTheSingleRegistryRenderingByteForByte() throws Exception {
        PrometheusExporter prom = liveShaped(1);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        prom.scrape("text/plain", text);
        assertThat(text.toString(StandardCharsets.UTF_8)).isEqualTo(golden("live-shaped-1-engine.prom"));
        ByteArrayOutputStream om = new ByteArrayOutputStream();
        prom.scrape("application/openmetrics-text; version=1.0.0", om);
        assertThat(om.toString(StandardCharsets.UTF_8)).isEqualTo(golden("live-shaped-1-engine.om"));
        assertThat(prom.scrape(null)).isEqualTo(golden("live-shaped-1-engine.prom"));
    }

    /**
     * Streamed in batches and merged with the registry's other families, the exposition is what the client's
     * writer makes of the whole registry in one call (after target_info, with one {@code # EOF}), in both
     * formats, while values change (gauges republished, histograms recorded into) and series come and go (a
     * new histogram series, a gauge series gone), and with the process_* families interleaved by name.
     */
    @Test
    void theBatchedStreamIsTheRegistrysOwnRenderingAsValuesAndSeriesChange() throws Exception {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "h"), true);
        LiveShapedHub.fill(hub, 12); // over BATCH_POINTS series: several writer calls
        hub.publish("rss", List.of(Point.of(HostMetrics.PROCESS_RSS, 1234, AttrKeys.ENGINE, "engine-00")));
        Map<String, String> probe = new java.util.HashMap<>(Map.of(AttrKeys.ENGINE, "engine-09", "tailwatch.scenario", "x",
                "gen_ai.operation.name", "chat", "gen_ai.provider.name", "ollama", "gen_ai.request.model", "m \"q\"",
                "server.address", "127.0.0.1", "server.port", "1"));
        String[] formats = {"text/plain", "application/openmetrics-text; version=1.0.0"};
        io.prometheus.metrics.expositionformats.ExpositionFormats writers = io.prometheus.metrics.expositionformats.ExpositionFormats.init();
        for (int round = 0; round < 6; round++) {
            for (String accept : formats) {
                String streamed = prom.scrape(accept);
                ByteArrayOutputStream whole = new ByteArrayOutputStream();
                writers.findWriter(prom.contentType(accept)).write(whole, prom.registry().scrape());
                String header = streamed.substring(0, streamed.indexOf('\n', streamed.indexOf("target_info{")) + 1);
                // process_* values move between the two renderings: compare those lines by name only.
                assertThat(withoutProcessValues(streamed)).as("round %d, %s", round, accept)
                        .isEqualTo(withoutProcessValues(header + whole.toString(StandardCharsets.UTF_8)));
                assertThat(streamed).contains("process_cpu_seconds_total ").contains("process_memory_usage_bytes{");
            }
            if (round % 2 == 1) {
                hub.record(ProbeMetrics.OPERATION_DURATION, probe, 0.1 * round + 1e-7);
                hub.record(ProbeMetrics.OPERATION_DURATION, probe, 1e9);
                hub.publish("changes", List.of(Point.of(EngineMetrics.UP, round % 3, AttrKeys.ENGINE, "engine-00"),
                        Point.of(EngineMetrics.MODEL_CONTEXT, round == 5 ? Double.NaN : 1.0 / 3 * round, AttrKeys.ENGINE,
                                "engine-00", AttrKeys.MODEL, "m")));
            } else {
                probe.put(AttrKeys.ENGINE, "engine-1" + round);
                hub.record(ProbeMetrics.TIME_TO_FIRST_CHUNK, probe, 0.25);
                hub.publish("changes", List.of(Point.of(EngineMetrics.LOADING, 1, AttrKeys.ENGINE, "engine-2" + round)));
            }
        }
    }

    private static String withoutProcessValues(String exposition) {
        return exposition.replaceAll("(?m)^(process_(?!memory_usage)[a-z_]+(\\{[^}]*\\})?) .*$", "$1");
    }

    /**
     * One recording per histogram: what /metrics shows of a series is the hub's series, the same one OTLP
     * exports, regrouped into the catalog's buckets (count, sum and the shared bounds agree).
     */
    @Test
    void aHistogramOnTheScrapeIsTheSeriesOtlpExports() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of(), false);
        Map<String, String> probe = Map.of(AttrKeys.ENGINE, "e", "tailwatch.scenario", "s", "gen_ai.operation.name", "chat",
                "gen_ai.provider.name", "ollama", "gen_ai.request.model", "m", "server.address", "127.0.0.1", "server.port", "1");
        double[] values = {0.005, 0.3, 0.5, 0.55, 0.64, 0.9, 1.0, 3.0, 100.0};
        for (double v : values) {
            hub.record(ProbeMetrics.OPERATION_DURATION, probe, v);
        }
        HistogramSeries s = hub.histograms().get(0);
        String text = prom.scrape(null);
        String prefix = "gen_ai_client_operation_duration_seconds";
        assertThat(text).contains(prefix + "_count{" + labelsOf(text, prefix) + "} 9\n")
                .contains(prefix + "_sum{" + labelsOf(text, prefix) + "} " + s.sum() + "\n")
                .contains(prefix + "_max{" + labelsOf(text, prefix) + "} 100.0\n");
        // Cumulative at the catalog's bounds: 0.5 and 1.0 are not OTLP bounds, yet their counts are exact.
        assertThat(text).contains("le=\"0.5\"} 3\n").contains("le=\"1.0\"} 7\n").contains("le=\"81.92\"} 8\n")
                .contains("le=\"+Inf\"} 9\n");
        // OTLP's buckets (the semconv advice, without 0.5 and 1.0) from the same counts.
        assertThat(s.bounds()).doesNotContain(0.5, 1.0);
        assertThat(s.counts()).containsExactly(1, 0, 0, 0, 0, 1, 3, 2, 0, 1, 0, 0, 0, 0, 1);
    }

    private static String labelsOf(String text, String family) {
        String line = text.lines().filter(l -> l.startsWith(family + "_count{")).findFirst().orElseThrow();
        return line.substring(line.indexOf('{') + 1, line.lastIndexOf('}'));
    }

    @Test
    void openMetricsEndsWithOneEofLine() throws Exception {
        PrometheusExporter prom = liveShaped(3);
        String om = prom.scrape("application/openmetrics-text");
        assertThat(om).endsWith("\n# EOF\n");
        assertThat(om.split("# EOF", -1)).hasSize(2);
        assertThat(prom.scrape("text/plain")).doesNotContain("# EOF");
        // Without any meter: target_info and the end.
        PrometheusExporter empty = new PrometheusExporter(new MetricHub(), Map.of("service.name", "t"), false);
        assertThat(empty.scrape("application/openmetrics-text"))
                .isEqualTo("# TYPE target info\n# HELP target Target metadata\ntarget_info{service_name=\"t\"} 1\n# EOF\n");
    }

    /** Records the size of every write. */
    static final class Writes extends OutputStream {
        final List<Integer> sizes = new ArrayList<>();
        long total;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            sizes.add(len);
            total += len;
        }
    }

    /**
     * About 5,000 series (25 engines, 2 scenarios each: 1.5 MB) reach the stream in writes of at most
     * the writers' 8 KiB buffers (a body built whole first would arrive in one write of its full size),
     * within the hub's exposition bound, in both formats.
     */
    @Test
    void aLargeHubIsWrittenInSmallChunksWithinTheBound() throws Exception {
        PrometheusExporter prom = liveShaped(25);
        for (String accept : new String[] {"text/plain", "application/openmetrics-text"}) {
            Writes w = new Writes();
            prom.scrape(accept, w);
            assertThat(w.total).as(accept).isBetween(1_000_000L, MetricHub.Limits.DEFAULT.maxExpositionBytes());
            assertThat(w.sizes.stream().mapToInt(Integer::intValue).max().orElseThrow()).as(accept).isLessThanOrEqualTo(8192);
            assertThat(w.sizes.size()).as(accept).isGreaterThan((int) (w.total / 8192));
        }
        String text = prom.scrape("text/plain");
        assertThat(text.lines().filter(l -> !l.startsWith("#")).count()).isGreaterThan(5_000);
    }

    /**
     * In a JVM with the daemon's flags (2 MiB young generation, serial collector) and -Xlog:gc, 40
     * renderings of that hub cause young collections only: what a scrape allocates dies young. (Rendered
     * whole, as one String, the same renderings caused about 100 full collections.)
     */
    @Test
    void scrapesOfAFiveThousandSeriesHubCauseNoFullCollection(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path gcLog = dir.resolve("gc.log");
        List<String> cmd = ExpositionHeapTest.javaWithDaemonFlags();
        assertThat(cmd).contains("-Xmn2m", "-XX:+UseSerialGC");
        cmd.addAll(List.of("-Xlog:gc:file=" + gcLog, "-cp", System.getProperty("java.class.path"),
                ScrapeGcRun.class.getName(), "25", "20", "8"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        List<String> log = Files.readAllLines(gcLog);
        int mark = -1;
        for (int i = 0; i < log.size(); i++) {
            if (log.get(i).contains("Pause Full (System.gc())")) {
                mark = i;
            }
        }
        assertThat(mark).as(String.join("\n", log)).isNotNegative();
        List<String> during = log.subList(mark + 1, log.size());
        assertThat(during.stream().filter(l -> l.contains("Pause Young"))).as("young collections while scraping").isNotEmpty();
        assertThat(during.stream().filter(l -> l.contains("Pause Full"))).as("full collections while scraping").isEmpty();
        System.out.println("40 scrapes of the 25-engine hub: " + out.strip() + ", "
                + during.stream().filter(l -> l.contains("Pause Young")).count() + " young collections, none full");
    }
}
