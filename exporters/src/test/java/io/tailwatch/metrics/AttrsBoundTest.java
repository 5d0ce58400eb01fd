package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Label values from outside (an engine's 100 KB version string) are bounded before they are exported. */
class AttrsBoundTest {
    @Test
    void aHugeEngineVersionIsCutButStaysDistinct() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of());
        String huge = "v".repeat(100_000);
        hub.publish("engine", List.of(
                Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, "a", AttrKeys.ENGINE_API, "openai",
                        AttrKeys.ENGINE_VERSION, huge + "1"),
                Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, "b", AttrKeys.ENGINE_API, "openai",
                        AttrKeys.ENGINE_VERSION, huge + "2")));
        String text = prom.scrape(null);
        assertThat(text.length()).isLessThan(8_000);
        List<String> lines = text.lines().filter(l -> l.startsWith("tailwatch_engine_info{")).toList();
        assertThat(lines).hasSize(2);
        for (String l : lines) {
            String version = l.replaceAll(".*_version=\"([^\"]*)\".*", "$1");
            assertThat(version).hasSize(Attrs.MAX_VALUE_CHARS).contains("~");
        }
        assertThat(lines.get(0).replaceAll(".*_version=\"([^\"]*)\".*", "$1"))
                .isNotEqualTo(lines.get(1).replaceAll(".*_version=\"([^\"]*)\".*", "$1"));
        assertThat(Attrs.bound("0.6.2")).isEqualTo("0.6.2");
    }

    @Test
    void controlCharactersNeverReachALabelValue() {
        assertThat(Attrs.bound("m\u0000odel\r\n\u001b[2J\u009b\u007f")).isEqualTo("m\uFFFDodel\uFFFD\uFFFD\uFFFD[2J\uFFFD\uFFFD");
        assertThat(new Point(SelfMetrics.SERIES_DROPPED, Map.of("k", "a\u0000b"), 1).attributes().get("k")).isEqualTo("a\uFFFDb");
        assertThat(Attrs.bound("tab\tand ünïcode")).isEqualTo("tab\uFFFDand ünïcode");
    }
}
