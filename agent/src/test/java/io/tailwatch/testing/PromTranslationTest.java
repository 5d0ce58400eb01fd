package io.tailwatch.testing;

import static io.tailwatch.testing.PromTranslation.Type.GAUGE;
import static io.tailwatch.testing.PromTranslation.Type.HISTOGRAM;
import static io.tailwatch.testing.PromTranslation.Type.MONOTONIC_COUNTER;
import static io.tailwatch.testing.PromTranslation.Type.NON_MONOTONIC_COUNTER;
import static io.tailwatch.testing.PromTranslation.labelName;
import static io.tailwatch.testing.PromTranslation.metricName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.metrics.Catalog;
import io.tailwatch.metrics.MetricDef;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The translation in {@link PromTranslation} against cases of the Prometheus otlptranslator library's own
 * tests, and the agent's catalog against it: every metric's name on /metrics is the name its OTLP export
 * gets in Prometheus.
 */
class PromTranslationTest {

    /**
     * From otlptranslator metric_namer_test.go, TestMetricNamer_Build, the UnderscoreEscapingWithSuffixes cases
     * (UTF8Allowed false, WithMetricSuffixes true): "counter metric with total suffix", "gauge with unit 1 gets
     * ratio suffix", "counter with unit 1 does not get ratio suffix", "metric with time unit", "metric with bytes
     * unit", "metric with per unit", "metric with complex per unit", "metric with unknown unit", "metric with unit
     * containing braces is ignored", "metric with per unit containing braces is ignored", "metric name already
     * contains total suffix", "... ratio suffix", "... unit suffix"; and from the same file's examples in
     * metric_namer.go ("http.server.duration" s histogram, "memory.usage" By gauge, "requests.count" 1 counter).
     */
    @Test
    void metricNamesFollowTheLibrarysCases() {
        assertThat(metricName("requests", "", MONOTONIC_COUNTER)).isEqualTo("requests_total");
        assertThat(metricName("cpu_usage", "1", GAUGE)).isEqualTo("cpu_usage_ratio");
        assertThat(metricName("items", "1", MONOTONIC_COUNTER)).isEqualTo("items_total");
        assertThat(metricName("response_time", "ms", GAUGE)).isEqualTo("response_time_milliseconds");
        assertThat(metricName("memory_usage", "By", GAUGE)).isEqualTo("memory_usage_bytes");
        assertThat(metricName("requests", "1/s", GAUGE)).isEqualTo("requests_per_second");
        assertThat(metricName("throughput", "By/s", GAUGE)).isEqualTo("throughput_bytes_per_second");
        assertThat(metricName("custom_metric", "custom_unit", GAUGE)).isEqualTo("custom_metric_custom_unit");
        assertThat(metricName("custom_metric", "{custom}", GAUGE)).isEqualTo("custom_metric");
        assertThat(metricName("custom_metric", "By/{custom}", GAUGE)).isEqualTo("custom_metric_bytes");
        assertThat(metricName("requests_total", "", MONOTONIC_COUNTER)).isEqualTo("requests_total");
        assertThat(metricName("cpu_usage_ratio", "1", GAUGE)).isEqualTo("cpu_usage_ratio");
        assertThat(metricName("response_time_seconds", "s", GAUGE)).isEqualTo("response_time_seconds");
        assertThat(metricName("http.server.duration", "s", HISTOGRAM)).isEqualTo("http_server_duration_seconds");
        assertThat(metricName("memory.usage", "By", GAUGE)).isEqualTo("memory_usage_bytes");
        assertThat(metricName("requests.count", "1", MONOTONIC_COUNTER)).isEqualTo("requests_count_total");
        // A non-monotonic sum with unit 1 is no gauge to the namer: no _ratio ("we're appending `_ratio` for gauges ONLY").
        assertThat(metricName("pool.usage", "1", NON_MONOTONIC_COUNTER)).isEqualTo("pool_usage");
        // The case this agent met: an annotation per second keeps its "per" part.
        assertThat(metricName("tailwatch.probe.decode.rate", "{token}/s", GAUGE)).isEqualTo("tailwatch_probe_decode_rate_per_second");
    }

    /** From otlptranslator label_namer_test.go (sanitized column, default namer). */
    @Test
    void labelNamesFollowTheLibrarysCases() {
        assertThat(labelName("label:with:colons")).isEqualTo("label_with_colons");
        assertThat(labelName("LabelWithCapitalLetters")).isEqualTo("LabelWithCapitalLetters");
        assertThat(labelName("label!with&special$chars)")).isEqualTo("label_with_special_chars_");
        assertThat(labelName("label.with.dots")).isEqualTo("label_with_dots");
        assertThat(labelName("123label")).isEqualTo("key_123label");
        assertThat(labelName("label__with__double__underscores")).isEqualTo("label_with_double_underscores");
        assertThatThrownBy(() -> labelName("")).hasMessage("label name is empty");
        assertThatThrownBy(() -> labelName("ようこそ")).hasMessage("normalization for label name \"ようこそ\" resulted in invalid name \"_\"");
        assertThat(labelName("gen_ai.request.model")).isEqualTo("gen_ai_request_model");
    }

    private static PromTranslation.Type type(MetricDef def) {
        return switch (def.instrument()) {
            case GAUGE -> GAUGE;
            case COUNTER -> MONOTONIC_COUNTER;
            case UPDOWNCOUNTER -> NON_MONOTONIC_COUNTER;
            case HISTOGRAM -> HISTOGRAM;
        };
    }

    /** Scrape and push name every series alike: /metrics' family name is the translated OTLP name, label by label too. */
    @Test
    void everyCatalogMetricHasOneNameOnBothPaths() {
        List<String> differ = new ArrayList<>();
        for (MetricDef def : Catalog.all()) {
            String pushed = metricName(def.name(), def.unit(), type(def));
            if (!pushed.equals(def.prometheusName())) {
                differ.add(def.name() + " (" + def.unit() + ", " + def.instrument() + "): scrape " + def.prometheusName()
                        + ", OTLP " + pushed);
            }
            for (String a : def.attributeNames()) {
                if (!labelName(a).equals(MetricDef.labelName(a))) {
                    differ.add(def.name() + " label " + a + ": scrape " + MetricDef.labelName(a) + ", OTLP " + labelName(a));
                }
            }
        }
        assertThat(differ).isEmpty();
    }
}
