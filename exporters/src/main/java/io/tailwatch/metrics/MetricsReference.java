package io.tailwatch.metrics;

import java.util.List;
import java.util.stream.Collectors;

/** Renders the metric reference (docs/metrics.md and `tailwatch metrics`) from the catalog. */
public final class MetricsReference {
    private MetricsReference() {
    }

    /** Families only /metrics carries, written by the Prometheus Java client (name, type, description). */
    public static final List<String[]> PROMETHEUS_ONLY = List.of(
            new String[] {"process_cpu_seconds_total", "counter", "CPU time (user + system) the agent's JVM has used."},
            new String[] {"process_start_time_seconds", "gauge", "Start time of the agent, seconds since the Unix epoch."},
            new String[] {"process_open_fds", "gauge", "Open file descriptors (Linux and macOS)."},
            new String[] {"process_max_fds", "gauge", "Limit on open file descriptors."},
            new String[] {"process_virtual_memory_bytes", "gauge", "Virtual memory size (Linux only: read from /proc/self/status)."},
            new String[] {"process_resident_memory_bytes", "gauge", "Resident memory (Linux only: read from /proc/self/status; absent on macOS)."});

    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# Metric reference\n\n");
        b.append("Generated from the catalog (`tailwatch metrics` prints this text). Every metric is exported over\n");
        b.append("OTLP under its OpenTelemetry name and on `/metrics` under its Prometheus name. A signal the host\n");
        b.append("cannot read is absent, never 0. Resource attributes (`service.name`, `service.version`, `host.name`,\n");
        b.append("`host.arch`, `os.type`, `os.version`, and on macOS `host.cpu.model` and `host.model`) arrive as the\n");
        b.append("OTLP resource and as the labels of `target_info` on `/metrics`; `service.instance.id` is stable per agent\n");
        b.append("(a name-based UUID of the host name, the machine id, the data directory and the configured listen address,\n");
        b.append("so two agents on one host differ and a restart keeps it) and, like every resource attribute, can be set with\n");
        b.append("`OTEL_RESOURCE_ATTRIBUTES`.\n\n");
        b.append("Names, units, instrument types and attributes follow the OpenTelemetry semantic conventions **v")
                .append(OtlpExporter.SEMCONV_VERSION).append("** (the OTLP instrumentation scope `").append(OtlpExporter.SCOPE_NAME)
                .append("` carries the agent's version; the scope and the resource carry the schema URL `")
                .append(OtlpExporter.SCHEMA_URL).append("`, the lowest version that has every name emitted).\n");
        b.append("Where semconv names a signal it is used as is; the `tailwatch.` names are signals semconv does not define\n");
        b.append("(or defines differently, as the description says). Custom attributes live in the `tailwatch.` namespace and\n");
        b.append("one thing has one attribute on every metric: the engine is `tailwatch.engine.name`, the scenario\n");
        b.append("`tailwatch.scenario`, the model `gen_ai.request.model`, a failure class `error.type`. On `/metrics` the dots\n");
        b.append("become underscores (`tailwatch_engine_name`).\n\n");
        b.append("Instrument is the OpenTelemetry instrument: a gauge, a counter (monotonic sum; `_total` on `/metrics`), an\n");
        b.append("updowncounter (non-monotonic sum; a gauge on `/metrics`) or a histogram (explicit buckets; `_bucket`,\n");
        b.append("`_sum` and `_count` on `/metrics`). Beside every histogram `/metrics` also has a `<name>_max` gauge: the\n");
        b.append("largest value recorded in the last two minutes (a decaying maximum, 80 to 120 s; not exported over OTLP).\n\n");
        b.append("| OpenTelemetry name | Prometheus name | Instrument | Unit | Attributes | Description |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (MetricDef d : Catalog.all()) {
            String attrs = d.attributes().isEmpty() ? "" : d.attributes().stream()
                    .map(a -> "`" + a.name() + "`" + (a.allowed().isEmpty() ? "" : " (" + String.join(", ", a.allowed()) + ")"))
                    .collect(Collectors.joining("; "));
            b.append("| `").append(d.name()).append("` | `").append(d.prometheusName()).append("` | ")
                    .append(d.instrument().name().toLowerCase()).append(" | `").append(d.unit()).append("` | ")
                    .append(attrs).append(" | ").append(d.description().replace("|", "\\|"));
            if (!d.buckets().isEmpty()) {
                List<Double> otlp = ProbeMetrics.otlpBuckets(d);
                b.append(otlp.equals(d.buckets()) ? " Buckets: " : " Buckets on `/metrics`: ")
                        .append(d.buckets().stream().map(MetricsReference::num).collect(Collectors.joining(", "))).append('.');
                if (!otlp.equals(d.buckets())) {
                    b.append(" Over OTLP (semconv advice): ")
                            .append(otlp.stream().map(MetricsReference::num).collect(Collectors.joining(", "))).append('.');
                }
            }
            b.append(" |\n");
        }
        b.append(prometheusOnly());
        b.append(gpuLimit());
        b.append(energyPerToken());
        b.append(otlpDetails());
        b.append(genAiNames());
        b.append(bothPaths());
        return b.toString();
    }

    private static String energyPerToken() {
        return """

                ## Energy per output token

                `tailwatch.engine.energy_per_output_token` (J/{token}) is the host's energy over the last minute of
                host samples (each interval's host power times its length) over the output tokens of every engine in
                it; `tailwatch.engine.power.attributed` is one engine's share of the host's average power, by its share
                of those tokens (through its proxy plus its probes). `tailwatch.power.source` says which host power:
                `rails` (IOReport cpu + gpu + ane + dram on Apple silicon, RAPL package + dram on Linux, while no rail
                is frozen) or `system` (a whole-host figure, `hw.host.power` where the agent has one, else RAPL psys).
                Both are absent where the host's power is unknown in the window; docs/proxy.md, "Energy per token".
                """;
    }

    private static String otlpDetails() {
        return """

                ## OTLP: types, buckets, temporality, the OTEL_* metric variables

                Attributes go out with their semconv type: `server.port` is an int (every other catalog attribute is a
                string); on `/metrics` every label is text.

                The GenAI client histograms follow the semconv bucket advice over OTLP: durations (operation, time to
                first chunk, time per output chunk) 0.01 s doubling to 81.92 s, token usage 1 quadrupling to 64 Mi.
                `/metrics` keeps its own buckets, for these reasons: the duration buckets add 0.5 s and 1 s so that the
                share of requests within TtftOverSlo's default (500 ms) or a 1 s SLO is an exact `le` edge; time per output
                chunk uses 1 ms to 10 s because a decode step on a local engine takes 5 to 100 ms, which the advice's
                10 ms floor folds into two buckets; token usage stops at 1 Mi, since a probe never sends more, and
                three more empty buckets per series would be scraped for nothing. Both exporters read the hub's one
                series of the observations, counted in the union of both sets of edges, so each has exact counts at its own.

                `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` is honoured for every instrument: `delta` (and
                `lowmemory`) make counters delta, as the SDK does, and the probe histograms too (each export carries
                the observations since the previous one, without min and max). `cumulative` is the default.
                `OTEL_METRICS_EXPORTER=none` turns OTLP off; `otlp` (the default) turns it on even without an endpoint
                (the SDK's default, localhost); any other exporter (`console`, `prometheus`, `logging`) is refused at
                start and by `tailwatch config check` with exit code 2 naming the variable, as is
                `OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=base2_exponential_bucket_histogram` (the probe
                histograms are the agent's bounded explicit-bucket series, the ones `/metrics` also bounds).
                `OtlpSemconvIT` decodes the wire from the real jar for each of these.
                """;
    }

    /** Where each GenAI client metric name comes from, and which OTEL_SEMCONV_STABILITY_OPT_IN value emits it. */
    private static String genAiNames() {
        StringBuilder b = new StringBuilder("""

                ## GenAI names: semantic conventions 1.41.0 and semantic-conventions-genai

                The GenAI conventions left the main semantic conventions after 1.41.0 for their own repository
                (open-telemetry/semantic-conventions-genai, still in development and without a release or schema
                version of its own), which renamed the client inference metrics (its PR 521) and replaced the token
                usage histogram by counters plus per-operation histograms (its PR 374). Following the migration rule of
                the conventions, the agent keeps the 1.41.0 names by default and `OTEL_SEMCONV_STABILITY_OPT_IN` (a
                comma-separated list) chooses: `gen_ai_latest_experimental` emits the current names instead,
                `gen_ai_latest_experimental/dup` both (the /dup form wins when both are listed); values of other
                categories and unknown values are ignored. The choice applies to OTLP and to `/metrics` alike (both
                read the same series), and the dashboards and rules read the 1.41.0 names: run `/dup` while moving
                queries over. The schema URL stays that of 1.41.0, the last published one.

                | Name | From | Emitted with OTEL_SEMCONV_STABILITY_OPT_IN | Replaces |
                |---|---|---|---|
                """);
        String old = "semantic conventions v" + OtlpExporter.SEMCONV_VERSION;
        String now = "semantic-conventions-genai (development)";
        String[][] rows = {
            {ProbeMetrics.OPERATION_DURATION.name(), old, "unset (default); `gen_ai_latest_experimental/dup`", ""},
            {ProbeMetrics.TIME_TO_FIRST_CHUNK.name(), old, "unset (default); `gen_ai_latest_experimental/dup`", ""},
            {ProbeMetrics.TIME_PER_OUTPUT_CHUNK.name(), old, "unset (default); `gen_ai_latest_experimental/dup`", ""},
            {ProbeMetrics.TOKEN_USAGE.name(), old, "unset (default); `gen_ai_latest_experimental/dup`", ""},
            {ProbeMetrics.INFERENCE_DURATION.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.OPERATION_DURATION.name() + "`"},
            {ProbeMetrics.INFERENCE_TIME_TO_FIRST_CHUNK.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TIME_TO_FIRST_CHUNK.name() + "`"},
            {ProbeMetrics.INFERENCE_TIME_PER_OUTPUT_CHUNK.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TIME_PER_OUTPUT_CHUNK.name() + "`"},
            {ProbeMetrics.USAGE_INPUT_TOKENS.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TOKEN_USAGE.name() + "` `_sum`, input"},
            {ProbeMetrics.USAGE_OUTPUT_TOKENS.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TOKEN_USAGE.name() + "` `_sum`, output"},
            {ProbeMetrics.INFERENCE_INPUT_TOKENS.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TOKEN_USAGE.name() + "`, input"},
            {ProbeMetrics.INFERENCE_OUTPUT_TOKENS.name(), now, "`gen_ai_latest_experimental`; `gen_ai_latest_experimental/dup`", "`" + ProbeMetrics.TOKEN_USAGE.name() + "`, output"},
        };
        for (String[] r : rows) {
            b.append("| `").append(r[0]).append("` | ").append(r[1]).append(" | ").append(r[2]).append(" | ")
                    .append(r[3]).append(" |\n");
        }
        b.append("""

                The usage counters count the tokens of successful probes (with `gen_ai.token.modality` text; a failed
                probe records no token count, as before), the per-operation histograms hold one count per successful
                probe; both keep `tailwatch.token.source`.
                """);
        return b.toString();
    }

    /** How the two paths name a series, and what a pushing fleet's Collector and Prometheus must be set to. */
    private static String bothPaths() {
        return """

                ## One name on both paths

                Every family's name on `/metrics` is the name Prometheus gives the same metric pushed over OTLP
                (through the kit's Collector and its `prometheusremotewrite` exporter, or Prometheus' own OTLP receiver)
                under the default translation (`UnderscoreEscapingWithSuffixes`): dots become underscores, the unit adds
                its suffix (`_seconds`, `_bytes`, `_ratio` on gauges of unit 1, `_per_second` for a unit per second),
                counters end in `_total`. `PromTranslationTest` holds every catalog entry to those rules (the
                otlptranslator library's, checked against its own test cases), and `DashboardsIT` runs every dashboard
                query and rule on both paths (docs/fleet.md). The OpenMetrics exposition declares each family's unit in
                a `# UNIT` line wherever the name ends with it, as the specification allows.
                """;
    }

    private static String prometheusOnly() {
        StringBuilder b = new StringBuilder("\n## Prometheus only: the agent's own process\n\n");
        b.append("The standard `process_*` families of the agent's JVM, as every Prometheus Java client exposes them (not\n");
        b.append("sent over OTLP). Their cost is measured in docs/performance.md.\n\n");
        b.append("| Prometheus name | Type | Description |\n|---|---|---|\n");
        for (String[] f : PROMETHEUS_ONLY) {
            b.append("| `").append(f[0]).append("` | ").append(f[1]).append(" | ").append(f[2]).append(" |\n");
        }
        return b.toString();
    }

    private static String gpuLimit() {
        return "\n## The GPU working-set limit and total memory\n\n"
                + "On a Mac the GPU shares the one pool of memory with the CPU, but a process's GPU working set is capped\n"
                + "below the total: `hw.gpu.memory.limit` (Metal's `recommendedMaxWorkingSetSize`, about 3/4 of memory on\n"
                + "the larger Macs, 107.52 GiB of a 128 GiB M5 Max) is that cap, and it follows the `iogpu.wired_limit_mb`\n"
                + "sysctl (`tailwatch.gpu.wired_limit`, absent while 0) when an operator raises it. `system.memory.limit` is\n"
                + "the whole pool. A model's weights, its KV cache and its engine's buffers count against the GPU limit; the\n"
                + "OS does not. `hw.gpu.memory.usage` is what GPU work holds system-wide (in_use) and what the driver has\n"
                + "allocated (allocated). Per loaded model, `tailwatch.model.gpu_memory.share` is its footprint plus its\n"
                + "context's KV cache over the limit (the figure `GpuMemoryLimitNear` reads), and\n"
                + "`tailwatch.model.kv_cache.headroom_tokens` the KV growth that still fits the tighter of available memory\n"
                + "and what the limit leaves. Linux hosts have no such limit: these series are absent, never 0.\n";
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
