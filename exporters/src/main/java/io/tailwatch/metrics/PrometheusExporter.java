package io.tailwatch.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prometheus exposition through Micrometer. Gauges and counters mirror the hub's snapshot (a series
 * that disappears from the snapshot is removed from the registry, so unknown stays absent);
 * histograms are Micrometer distribution summaries with the catalog's explicit buckets.
 * Rendering reads only the registry, so a slow sampler never blocks a scrape.
 */
public final class PrometheusExporter implements MetricSink {
    public static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    public static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<Point.SeriesKey, Series> series = new HashMap<>();
    private final Map<String, DistributionSummary> summaries = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final String targetInfoLabels;

    public PrometheusExporter(Map<String, String> resourceAttributes) {
        this(resourceAttributes, true);
    }

    /** {@code processMetrics}: also expose the standard process_* families of this JVM (see {@link MetricsReference}). */
    public PrometheusExporter(Map<String, String> resourceAttributes, boolean processMetrics) {
        this.targetInfoLabels = labels(resourceAttributes);
        if (processMetrics) {
            ProcessMetrics.builder().register(registry.getPrometheusRegistry());
        }
    }

    private static final class Series {
        volatile double value;
        Meter meter;
    }

    @Override
    public synchronized void onSnapshot(MetricSnapshot snapshot) {
        Set<Point.SeriesKey> seen = new HashSet<>();
        for (Point p : snapshot.points()) {
            Point.SeriesKey key = p.key();
            seen.add(key);
            Series s = series.get(key);
            if (s == null) {
                s = new Series();
                s.meter = register(p.metric(), p.attributes(), s);
                series.put(key, s);
            }
            s.value = p.value();
        }
        List<Point.SeriesKey> gone = new ArrayList<>();
        for (Map.Entry<Point.SeriesKey, Series> e : series.entrySet()) {
            if (!seen.contains(e.getKey())) {
                registry.remove(e.getValue().meter);
                gone.add(e.getKey());
            }
        }
        gone.forEach(series::remove);
    }

    private Meter register(MetricDef def, Map<String, String> attrs, Series s) {
        Tags tags = presentTags(def, attrs);
        if (def.instrument() == Instrument.COUNTER) {
            return FunctionCounter.builder(def.name(), s, x -> x.value)
                    .description(def.description()).baseUnit(def.baseUnit()).tags(tags).register(registry);
        }
        return Gauge.builder(def.name(), s, x -> x.value)
                .description(def.description()).baseUnit(def.baseUnit()).tags(tags).strongReference(true)
                .register(registry);
    }

    @Override
    public void onRecord(MetricDef histogram, Map<String, String> attributes, double value) {
        String key = histogram.name() + new TreeMap<>(attributes);
        if ("s".equals(histogram.unit())) {
            // Micrometer's fixed-boundary histograms count whole units; durations go through a Timer
            // (nanosecond resolution) so sub-second buckets fill correctly.
            timers.computeIfAbsent(key, k -> Timer.builder(histogram.name())
                    .description(histogram.description())
                    .tags(tags(histogram, attributes))
                    .serviceLevelObjectives(histogram.buckets().stream()
                            .map(b -> Duration.ofNanos(Math.round(b * 1e9))).toArray(Duration[]::new))
                    .register(registry)).record(Math.round(value * 1e9), TimeUnit.NANOSECONDS);
            return;
        }
        summaries.computeIfAbsent(key, k -> DistributionSummary.builder(histogram.name())
                .description(histogram.description())
                .baseUnit(histogram.baseUnit())
                .tags(tags(histogram, attributes))
                .serviceLevelObjectives(histogram.buckets().stream().mapToDouble(Double::doubleValue).toArray())
                .register(registry)).record(value);
    }

    @Override
    public void onExpire(MetricDef histogram, Map<String, String> attributes) {
        String key = histogram.name() + new TreeMap<>(attributes);
        Meter m = timers.remove(key);
        if (m == null) {
            m = summaries.remove(key);
        }
        if (m != null) {
            registry.remove(m);
        }
    }

    /** Histogram series held now (tests). */
    int histogramMeters() {
        return timers.size() + summaries.size();
    }

    /** Every declared attribute becomes a tag (Micrometer wants one key set per name); absent optional ones are empty. */
    private static Tags tags(MetricDef def, Map<String, String> attrs) {
        List<Tag> t = new ArrayList<>(def.attributes().size());
        for (AttributeDef a : def.attributes()) {
            t.add(Tag.of(MetricDef.labelName(a.name()), attrs.getOrDefault(a.name(), "")));
        }
        return Tags.of(t);
    }

    /**
     * Gauges and counters carry only the labels a series has: an absent optional attribute (or an
     * empty value) is left out rather than rendered as {@code label=""}, which PromQL reads the same way.
     */
    private static Tags presentTags(MetricDef def, Map<String, String> attrs) {
        List<Tag> t = new ArrayList<>(def.attributes().size());
        for (AttributeDef a : def.attributes()) {
            String v = attrs.get(a.name());
            if (v != null && !v.isEmpty()) {
                t.add(Tag.of(MetricDef.labelName(a.name()), v));
            }
        }
        return Tags.of(t);
    }

    /** True when the Accept header asks for OpenMetrics. */
    public static boolean wantsOpenMetrics(String accept) {
        return accept != null && accept.contains("application/openmetrics-text");
    }

    public String contentType(String accept) {
        return wantsOpenMetrics(accept) ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE;
    }

    /** Renders the exposition for the given Accept header, with target_info carrying the resource attributes. */
    public String scrape(String accept) {
        boolean om = wantsOpenMetrics(accept);
        String body = registry.scrape(om ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE);
        StringBuilder out = new StringBuilder(body.length() + 256);
        if (om) {
            out.append("# TYPE target info\n# HELP target Target metadata\ntarget_info").append(targetInfoLabels).append(" 1\n");
        } else {
            out.append("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info").append(targetInfoLabels).append(" 1\n");
        }
        out.append(body);
        return out.toString();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    private static String labels(Map<String, String> attrs) {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(attrs).entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(MetricDef.labelName(e.getKey())).append("=\"")
                    .append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                    .append('"');
        }
        return b.append('}').toString();
    }
}
