package io.tailwatch.metrics;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.resources.Resource;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OTLP push through the OpenTelemetry SDK's autoconfiguration, so OTEL_EXPORTER_OTLP_*,
 * OTEL_METRIC_EXPORT_INTERVAL, OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME behave as in any SDK.
 * The agent's config supplies defaults that those variables override. Gauges and counters are
 * observed from the hub's latest snapshot at export time; histograms are the hub's own bounded,
 * expiring series, handed to the SDK as a metric producer.
 * Temporality is cumulative unless OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE says otherwise
 * (the SDK applies it to gauges and counters, the histogram producer to histograms); cumulative means a
 * down endpoint costs no growing buffer: the next export carries the totals.
 */
public final class OtlpExporter implements MetricSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OtlpExporter.class);
    private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * The semantic conventions version the catalog follows, stated in docs/metrics.md and as the schema URL
     * of the scope and of the resource: the lowest that has every name emitted
     * ({@code gen_ai.client.operation.time_to_first_chunk} and {@code ...time_per_output_chunk} came in 1.41.0).
     */
    public static final String SEMCONV_VERSION = "1.41.0";
    public static final String SCHEMA_URL = "https://opentelemetry.io/schemas/" + SEMCONV_VERSION;
    public static final String SCOPE_NAME = "io.tailwatch";

    private final io.opentelemetry.sdk.metrics.SdkMeterProvider meterProvider;
    private final String scopeVersion;
    private volatile String endpoint = "";
    private final MetricHub hub;

    private OtlpExporter(io.opentelemetry.sdk.metrics.SdkMeterProvider meterProvider, MetricHub hub, AtomicLong failures,
                         String scopeVersion) {
        this.meterProvider = meterProvider;
        this.scopeVersion = scopeVersion;
        this.hub = hub;
        this.failuresRef = failures;
        registerInstruments();
    }

    /** The same instruments over a given reader (tests and tools); no OTLP transport involved. */
    public static OtlpExporter withReader(io.opentelemetry.sdk.metrics.export.MetricReader reader, MetricHub hub,
                                          Map<String, String> resourceAttributes) {
        String version = resourceAttributes.getOrDefault("service.version", "dev");
        io.opentelemetry.sdk.metrics.SdkMeterProvider provider = io.opentelemetry.sdk.metrics.SdkMeterProvider.builder()
                .setResource(Resource.create(attributes(resourceAttributes), SCHEMA_URL)).registerMetricReader(reader)
                .registerMetricProducer(new HubHistogramProducer(hub, version,
                        reader.getAggregationTemporality(InstrumentType.HISTOGRAM))).build();
        return new OtlpExporter(provider, hub, new AtomicLong(), version);
    }

    /**
     * Whether OTLP should run: on in config, an endpoint given through the environment, or an exporter
     * named in OTEL_METRICS_EXPORTER (which {@link #start} then accepts or refuses); "none" turns it off.
     */
    public static boolean enabled(OtlpSettings settings, Map<String, String> env) {
        String exporter = env.get("OTEL_METRICS_EXPORTER");
        if (exporter != null && exporter.strip().equals("none")) {
            return false;
        }
        return settings.enabled() || has(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
                || has(env, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") || has(env, "OTEL_METRICS_EXPORTER");
    }

    /**
     * Refuses the OTEL_* metric settings the agent cannot honour, naming the variable: exporters other
     * than otlp (the agent's local view is /metrics; the SDK's console exporter is not in the jar), and
     * exponential histograms (the probe histograms are the hub's bounded explicit-bucket series).
     */
    static void refuseUnsupported(io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties config) {
        for (String e : config.getList("otel.metrics.exporter", java.util.List.of("otlp"))) {
            if (!e.equals("otlp")) {
                throw new BadSettings("OTEL_METRICS_EXPORTER=" + e + " is not supported: the agent exports metrics"
                        + " over otlp (or none); for a local view read /metrics or run `tailwatch status`");
            }
        }
        String aggregation = config.getString("otel.exporter.otlp.metrics.default.histogram.aggregation");
        if (aggregation != null && !aggregation.equalsIgnoreCase("explicit_bucket_histogram")) {
            throw new BadSettings("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=" + aggregation
                    + " is not supported: the probe histograms are exported with explicit buckets"
                    + " (explicit_bucket_histogram, the default)");
        }
    }

    /** The histograms' temporality for OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, as the SDK sets it for its own. */
    static AggregationTemporality histogramTemporality(io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties config) {
        String pref = config.getString("otel.exporter.otlp.metrics.temporality.preference", "cumulative")
                .toLowerCase(java.util.Locale.ROOT);
        return switch (pref) {
            case "delta", "lowmemory" -> AggregationTemporality.DELTA;
            default -> AggregationTemporality.CUMULATIVE;
        };
    }

    private static boolean has(Map<String, String> env, String key) {
        String v = env.get(key);
        return v != null && !v.isBlank();
    }

    /** Bound on the final export at shutdown: a hung collector costs SIGTERM at most this long. */
    public static final long SHUTDOWN_MILLIS = 1_500;

    /** OTLP settings the SDK refuses (a malformed OTEL_* variable, say), with the variable named. */
    public static final class BadSettings extends RuntimeException {
        BadSettings(String message) {
            super(message);
        }
    }

    /**
     * Builds the exporter exactly as {@link #start} does and shuts it down: null when {@code run} would
     * start OTLP with these settings and this environment, else the reason. `config check` uses it, so
     * the two cannot disagree.
     */
    public static String check(OtlpSettings settings, Map<String, String> env) {
        if (!enabled(settings, env)) {
            return null;
        }
        try {
            OtlpExporter e = start(settings, new MetricHub(), Map.of());
            e.meterProvider.shutdown().join(1, TimeUnit.SECONDS);
            return null;
        } catch (BadSettings e) {
            return e.getMessage();
        }
    }

    /** "otel.exporter.otlp.headers" -> "otel.exporter.otlp.headers (OTEL_EXPORTER_OTLP_HEADERS)". */
    static String nameVariables(String message) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("otel(\\.[a-z_]+)+").matcher(String.valueOf(message));
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String var = m.group().toUpperCase(java.util.Locale.ROOT).replace('.', '_');
            m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(m.group() + " (" + var + ")"));
        }
        m.appendTail(b);
        return b.toString();
    }

    /**
     * Builds the SDK and registers an instrument for every catalog metric. Header values from the config
     * go to the exporter as they are (the SDK's own variable format, comma-separated and URL-decoded, is
     * kept for OTEL_EXPORTER_OTLP_HEADERS, which replaces them when set). Throws {@link BadSettings}.
     */
    public static OtlpExporter start(OtlpSettings settings, MetricHub hub, Map<String, String> resourceAttributes) {
        String version = resourceAttributes.getOrDefault("service.version", "dev");
        Map<String, String> defaults = new HashMap<>();
        defaults.put("otel.metrics.exporter", "otlp");
        defaults.put("otel.traces.exporter", "none");
        defaults.put("otel.logs.exporter", "none");
        defaults.put("otel.service.name", "tailwatch");
        if (settings.endpoint() != null && !settings.endpoint().isBlank()) {
            defaults.put("otel.exporter.otlp.endpoint", settings.endpoint());
        }
        if (settings.protocol() != null) {
            defaults.put("otel.exporter.otlp.protocol", settings.protocol());
        }
        if (settings.interval() != null) {
            defaults.put("otel.metric.export.interval", Long.toString(settings.interval().toMillis()));
        }
        AtomicLong failures = new AtomicLong();
        Runnable publishFailures = () -> hub.publish("otlp",
                java.util.List.of(Point.of(SelfMetrics.OTLP_EXPORT_FAILURES, failures.get())));
        publishFailures.run();
        String[] used = {""};
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> defaults)
                .addResourceCustomizer((resource, config) -> {
                    refuseUnsupported(config);
                    // The caller already applied OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME to these, so
                    // they win over the SDK's defaults (which include a random service.instance.id). One schema
                    // URL, the catalog's, for the resource as for the scope.
                    Resource merged = resource.merge(Resource.create(attributes(resourceAttributes)));
                    return Resource.create(merged.getAttributes(), SCHEMA_URL);
                })
                .addMetricExporterCustomizer((exporter, config) -> {
                    used[0] = endpointUsed(config.getString("otel.exporter.otlp.metrics.protocol",
                                    config.getString("otel.exporter.otlp.protocol", "http/protobuf")),
                            config.getString("otel.exporter.otlp.metrics.endpoint"),
                            config.getString("otel.exporter.otlp.endpoint"));
                    boolean envHeaders = !config.getMap("otel.exporter.otlp.headers").isEmpty()
                            || !config.getMap("otel.exporter.otlp.metrics.headers").isEmpty();
                    return new CountingExporter(SeriesEndMarker.wrap(withoutSelfTelemetry(exporter,
                            envHeaders ? Map.of() : settings.headers())), failures, publishFailures);
                })
                .addMeterProviderCustomizer((builder, config) ->
                        builder.registerMetricProducer(new HubHistogramProducer(hub, version, histogramTemporality(config))))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        } catch (io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException e) {
            if (e.getCause() instanceof BadSettings refused) {
                throw refused;
            }
            throw new BadSettings(nameVariables(e.getMessage()));
        } catch (RuntimeException e) {
            if (e.getCause() instanceof BadSettings refused) {
                throw refused;
            }
            throw e;
        }
        OtlpExporter out = new OtlpExporter(sdk.getSdkMeterProvider(), hub, failures, version);
        out.endpoint = used[0];
        return out;
    }

    /**
     * The URL metrics go to, resolved as the SDK resolves it: the metrics-specific endpoint as given, else
     * the general one (with /v1/metrics appended for HTTP), else the protocol's default on localhost.
     */
    static String endpointUsed(String protocol, String metricsEndpoint, String endpoint) {
        boolean grpc = "grpc".equals(protocol);
        if (metricsEndpoint != null && !metricsEndpoint.isBlank()) {
            return metricsEndpoint;
        }
        if (endpoint != null && !endpoint.isBlank()) {
            if (grpc) {
                return endpoint;
            }
            return (endpoint.endsWith("/") ? endpoint : endpoint + "/") + "v1/metrics";
        }
        return grpc ? "http://localhost:4317" : "http://localhost:4318/v1/metrics";
    }

    /** The endpoint metrics are exported to, and the protocol, as resolved at start (never headers). */
    public String endpoint() {
        return endpoint;
    }

    private final AtomicLong failuresRef;

    /**
     * The OTLP exporters report their own counters (otlp.exporter.*) through the SDK; those are not
     * in the catalog and would reach users undocumented, so they are switched off.
     */
    private static MetricExporter withoutSelfTelemetry(MetricExporter exporter, Map<String, String> headers) {
        MetricExporter quiet = exporter;
        if (exporter instanceof io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter h) {
            var b = h.toBuilder().setMeterProvider(io.opentelemetry.api.metrics.MeterProvider::noop);
            headers.forEach(b::addHeader);
            quiet = b.build();
        } else if (exporter instanceof io.opentelemetry.exporter.otlp.metrics.OtlpGrpcMetricExporter g) {
            var b = g.toBuilder().setMeterProvider(io.opentelemetry.api.metrics.MeterProvider::noop);
            headers.forEach(b::addHeader);
            quiet = b.build();
        }
        if (quiet != exporter) {
            exporter.shutdown();
        }
        return quiet;
    }

    public long failures() {
        return failuresRef.get();
    }

    private void registerInstruments() {
        Meter meter = meterProvider.meterBuilder(SCOPE_NAME).setInstrumentationVersion(scopeVersion)
                .setSchemaUrl(SCHEMA_URL).build();
        Supplier<MetricSnapshot> snap = () -> {
            hub.refresh();
            return hub.snapshot();
        };
        for (MetricDef def : Catalog.all()) {
            switch (def.instrument()) {
                case GAUGE -> meter.gaugeBuilder(def.name()).setUnit(def.unit()).setDescription(def.description())
                        .buildWithCallback(m -> {
                            for (Point p : snap.get().of(def)) {
                                m.record(p.value(), attributes(p.attributes()));
                            }
                        });
                case COUNTER -> meter.counterBuilder(def.name()).ofDoubles().setUnit(def.unit())
                        .setDescription(def.description())
                        .buildWithCallback(m -> {
                            for (Point p : snap.get().of(def)) {
                                m.record(p.value(), attributes(p.attributes()));
                            }
                        });
                case UPDOWNCOUNTER -> meter.upDownCounterBuilder(def.name()).ofDoubles().setUnit(def.unit())
                        .setDescription(def.description())
                        .buildWithCallback(m -> {
                            for (Point p : snap.get().of(def)) {
                                m.record(p.value(), attributes(p.attributes()));
                            }
                        });
                case HISTOGRAM -> {
                    // Read from the hub's bounded, expiring series at export time (HubHistogramProducer).
                }
            }
        }
    }

    /** Attributes whose semconv type is int (the catalog keeps every value as text). */
    static final java.util.Set<String> INT_ATTRIBUTES = java.util.Set.of("server.port");

    /** The attributes with their semconv types: an int attribute whose text is a number goes out as an int. */
    static Attributes attributes(Map<String, String> attrs) {
        AttributesBuilder b = Attributes.builder();
        attrs.forEach((k, v) -> {
            if (INT_ATTRIBUTES.contains(k) && v != null && v.matches("-?[0-9]{1,18}")) {
                b.put(k, Long.parseLong(v));
            } else {
                b.put(k, v);
            }
        });
        return b.build();
    }

    @Override
    public void onSnapshot(MetricSnapshot snapshot) {
        // Observed lazily at export time.
    }

    @Override
    public void onRecord(MetricDef histogram, Map<String, String> attributes, double value) {
        // Aggregated in the hub; exported by HubHistogramProducer.
    }

    /** Exports what is pending now, waiting at most {@code timeoutMillis}. */
    public boolean flush(long timeoutMillis) {
        return meterProvider.forceFlush().join(timeoutMillis, TimeUnit.MILLISECONDS).isSuccess();
    }

    @Override
    public void close() {
        // The final export; a collector that does not answer is not waited for beyond the bound.
        meterProvider.shutdown().join(SHUTDOWN_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Counts failed exports and logs them at most once a minute. */
    static final class CountingExporter extends ForwardingExporter {
        private final AtomicLong failures;
        private final Runnable onFailure;
        private volatile long lastLog = System.nanoTime() - FAILURE_LOG_INTERVAL_NANOS;

        CountingExporter(MetricExporter delegate, AtomicLong failures, Runnable onFailure) {
            super(delegate);
            this.failures = failures;
            this.onFailure = onFailure;
        }

        @Override
        public CompletableResultCode export(Collection<MetricData> metrics) {
            CompletableResultCode result = delegate.export(metrics);
            result.whenComplete(() -> {
                if (!result.isSuccess()) {
                    long n = failures.incrementAndGet();
                    onFailure.run();
                    long now = System.nanoTime();
                    if (now - lastLog >= FAILURE_LOG_INTERVAL_NANOS) {
                        lastLog = now;
                        LOG.warn("OTLP export failed ({} failures so far); retrying at the next interval", n);
                    }
                }
            });
            return result;
        }
    }
}
