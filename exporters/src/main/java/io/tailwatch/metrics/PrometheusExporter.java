package io.tailwatch.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * /metrics, rendered from the {@link MetricHub} when it is scraped. One Prometheus client registry holds
 * what the exposition shows: the hub (a {@link HubCollector}, which builds the client's snapshots from the
 * hub's series at that moment), the standard process_* families, and a Micrometer registry sharing it for
 * the agent's own meters. The client's text and OpenMetrics writers write it. Nothing is copied out of the
 * hub between scrapes, so a series the hub no longer has is never shown, and a histogram has one recording,
 * the hub's.
 *
 * <p>The exposition streams to the response family by family: target_info first, then the families in
 * name order. Each series of the hub's is written from the writer's rendering of it, kept while the series
 * lives ({@link RenderedChunks}): a new value is written behind the writer's kept line beginnings, formatted
 * as the writer formats numbers, so a scrape calls the writer for the series new since the last one (a
 * family's new series in one call) and holds one family's new snapshots at a time, never the whole exposition (a few thousand series would be megabytes, more than the daemon's
 * 2 MiB young generation: each scrape would promote them and old-generation collections follow).
 */
public final class PrometheusExporter {
    public static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    public static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrometheusExporter.class);


    private final MetricHub hub;
    private final HubCollector collector;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusMeterRegistry meters;
    private final ExpositionFormats formats = ExpositionFormats.init();
    /** The writer's bytes of the hub's families, kept for the next scrape. */
    private final RenderedChunks chunks = new RenderedChunks();
    private final byte[] targetInfoText;
    private final byte[] targetInfoOpenMetrics;

    public PrometheusExporter(MetricHub hub, Map<String, String> resourceAttributes) {
        this(hub, resourceAttributes, true);
    }

    /** {@code processMetrics}: also expose the standard process_* families of this JVM (see {@link MetricsReference}). */
    public PrometheusExporter(MetricHub hub, Map<String, String> resourceAttributes, boolean processMetrics) {
        this.hub = hub;
        this.collector = new HubCollector(hub);
        registry.register(collector);
        this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, registry, Clock.SYSTEM);
        if (processMetrics) {
            ProcessMetrics.builder().register(registry);
        }
        String targetInfoLabels = labels(resourceAttributes);
        this.targetInfoText = ("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info" + targetInfoLabels
                + " 1\n").getBytes(StandardCharsets.UTF_8);
        this.targetInfoOpenMetrics = ("# TYPE target info\n# HELP target Target metadata\ntarget_info" + targetInfoLabels
                + " 1\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The registry /metrics renders (the hub's families, the process_* ones, the agent's own meters). */
    public PrometheusRegistry registry() {
        return registry;
    }

    /** What is kept of the hub's series' renderings for the next scrape. */
    RenderedChunks chunks() {
        return chunks;
    }

    /** The hub's side of the registry. */
    HubCollector collector() {
        return collector;
    }

    /** Where the agent's own meters go (JVM, process): rendered on /metrics beside the hub's families. */
    public MeterRegistry meters() {
        return meters;
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
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try {
            scrape(accept, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Streams the exposition for the given Accept header to {@code out}: the hub's producers refreshed
     * ({@link MetricHub#refresh}), target_info, then every family of the registry in name order, the hub's
     * read once for the whole scrape. OpenMetrics gets one {@code # EOF}, at the end.
     */
    public void scrape(String accept, OutputStream out) throws IOException {
        try {
            hub.refresh();
        } catch (RuntimeException e) {
            LOG.warn("refreshing before a scrape failed: {}", e.toString());
        }
        boolean om = wantsOpenMetrics(accept);
        ExpositionFormatWriter writer = formats.findWriter(om ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE);
        out.write(om ? targetInfoOpenMetrics : targetInfoText);
        // The hub's families and the others (process_*, the agent's own meters), by name; the others in batches.
        TreeMap<String, Object> families = new TreeMap<>(collector.view());
        for (MetricSnapshot s : registry.scrape(name -> !HubCollector.owns(name))) {
            families.put(s.getMetadata().getPrometheusName(), s);
        }
        List<MetricSnapshot> others = new ArrayList<>();
        try (RenderedChunks.Pass pass = chunks.begin(writer, om, out)) {
            for (Object family : families.values()) {
                if (family instanceof HubCollector.Rows rows) {
                    pass.write(others);
                    pass.write(rows);
                } else {
                    others.add((MetricSnapshot) family);
                }
            }
            pass.write(others);
        }
        if (om) {
            out.write(RenderedChunks.EOF);
        }
    }

    private static String labels(Map<String, String> attrs) {
        return new TreeMap<>(attrs).entrySet().stream()
                .map(e -> MetricDef.labelName(e.getKey()) + "=\"" + e.getValue().replace("\\", "\\\\").replace("\"", "\\\"")
                        .replace("\n", "\\n") + '"')
                .collect(java.util.stream.Collectors.joining(",", "{", "}"));
    }
}
