package io.tailwatch.core.rules;

import static io.tailwatch.core.rules.Expr.Matching.ignoring;
import static io.tailwatch.core.rules.Expr.Matching.on;
import static io.tailwatch.core.rules.Expr.and;
import static io.tailwatch.core.rules.Expr.cmp;
import static io.tailwatch.core.rules.Expr.countBy;
import static io.tailwatch.core.rules.Expr.div;
import static io.tailwatch.core.rules.Expr.increase;
import static io.tailwatch.core.rules.Expr.minOverTime;
import static io.tailwatch.core.rules.Expr.minus;
import static io.tailwatch.core.rules.Expr.mul;
import static io.tailwatch.core.rules.Expr.or;
import static io.tailwatch.core.rules.Expr.select;
import static io.tailwatch.core.rules.Expr.times;
import static io.tailwatch.core.rules.Expr.unless;

import io.tailwatch.core.rules.Expr.Matching;
import io.tailwatch.core.rules.Expr.Op;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.AttrValues.WebhookOutcome;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.metrics.SelfMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every alert rule the agent evaluates and exports, in one place. The agent, the Prometheus rules
 * file, the Grafana alerting file, the config defaults and the runbook anchors all come from here.
 */
public final class Rules {
    private Rules() {
    }

    /** Labels Prometheus adds per scraped agent: host-level joins stay within one host. */
    static final String[] HOST = {"job", "instance"};
    /** Label names of the engine, model, scenario and percentile as they appear on alerts and in PromQL. */
    public static final String ENGINE = AttrKeys.label(AttrKeys.ENGINE);
    public static final String MODEL = AttrKeys.label(AttrKeys.MODEL);
    public static final String SCENARIO = AttrKeys.label(AttrKeys.SCENARIO);
    public static final String PERCENTILE = AttrKeys.label(AttrKeys.PERCENTILE);
    public static final String SAMPLER = AttrKeys.label(AttrKeys.SAMPLER);
    public static final String WEBHOOK_OUTCOME = AttrKeys.label(AttrKeys.WEBHOOK_OUTCOME);
    static final String[] WINDOW = {"job", "instance", ENGINE, MODEL, SCENARIO};
    /** Label name of a proxy lane, and the labels one lane of one engine's proxy is known by. */
    public static final String LANE = AttrKeys.label(AttrKeys.LANE);
    static final String[] LANE_OF = {"job", "instance", ENGINE, LANE};
    /** LaneSloMissed and LaneGoodputLow need this many requests of the lane in its window before its p95 means anything. */
    public static final int MIN_LANE_REQUESTS = 20;
    /** LaneQueueWaitHigh needs this many requests of the lane in its window (a batch lane sends few, long ones). */
    public static final int MIN_LANE_QUEUE_REQUESTS = 5;
    /** TailLatencySpread needs this many probes in the window before p99 means anything. */
    public static final int MIN_SPREAD_SAMPLES = 20;
    /** SwapGrowthUnderLoad compares against the lowest swap use over this span. */
    public static final Duration SWAP_GROWTH_SPAN = Duration.ofMinutes(10);
    /** ThermalThrottling: macOS thermal pressure at or above "heavy". */
    public static final int THERMAL_HEAVY = 2;
    /** ThermalThrottling: thermal throttle events (Linux x86 counters) within this span count as throttling. */
    public static final Duration THROTTLE_SPAN = Duration.ofMinutes(2);
    /** SwapUsedHigh: pages are "moving" when at least this many were swapped in or out within {@link #PAGING_SPAN}. */
    public static final int PAGING_MIN_OPERATIONS = 10;
    public static final Duration PAGING_SPAN = Duration.ofMinutes(5);
    /** SwapUsedHigh: memory pressure at or above this level (warning) counts as pages moving too. */
    public static final int PRESSURE_WARNING = 1;
    /** ProbeErrors: a window needs at least this many failed probes before its error ratio means anything. */
    public static final int PROBE_ERRORS_MIN_FAILURES = 3;
    private static final long GIB = 1L << 30;
    /** SamplerFailing: a sampler whose last run failed, for this long. */
    public static final Duration SAMPLER_FAILING_FOR = Duration.ofMinutes(5);
    /** OtlpExportFailing and WebhookNotificationsDropped count over this span. */
    public static final Duration SELF_SPAN = Duration.ofMinutes(15);
    /** The Prometheus scrape job TailwatchDown watches ({@code job_name: tailwatch}). */
    public static final String PROMETHEUS_JOB = "tailwatch";

    private static Expr swapUsed() {
        return select(HostMetrics.PAGING_USAGE, PagingState.USED);
    }

    private static Expr e2e(Percentile percentile) {
        return select(ProbeMetrics.WINDOW_E2E, percentile);
    }

    /** A regex matching exactly these enumerated values. */
    static String anyOf(AttrValue... values) {
        StringBuilder b = new StringBuilder();
        for (AttrValue v : values) {
            b.append(b.length() == 0 ? "" : "|").append(v.value());
        }
        return b.toString();
    }

    public static final RuleDef SWAP_USED_HIGH = new RuleDef("SwapUsedHigh", Severity.WARNING,
            ValueKind.BYTES, ValueKind.BYTES, (double) GIB, Duration.ofMinutes(2),
            "Swap in use above {threshold} and pages moving",
            "{value} of swap is in use (threshold {threshold}, for {for}) while pages are being swapped in or out, or memory pressure is at warning or above. Model weights or KV cache paged to SSD make decoding 10x slower or worse.",
            p -> and(cmp(swapUsed(), Op.GT, p.threshold()), on(HOST),
                    or(cmp(increase(select(HostMetrics.PAGING_OPERATIONS), PAGING_SPAN), Op.GE, PAGING_MIN_OPERATIONS),
                            cmp(select(HostMetrics.PRESSURE_LEVEL), Op.GE, PRESSURE_WARNING))));

    public static final RuleDef SWAP_GROWTH_UNDER_LOAD = new RuleDef("SwapGrowthUnderLoad", Severity.CRITICAL,
            ValueKind.BYTES, ValueKind.BYTES, 2.0 * GIB, Duration.ofMinutes(1),
            "Swap grew by more than {threshold} within 10m while probes were running",
            "Swap grew by {value} over the last 10m while engines were being probed: the memory budget has collapsed.",
            p -> and(cmp(minus(swapUsed(), Matching.ALL, minOverTime(swapUsed(), SWAP_GROWTH_SPAN)), Op.GT, p.threshold()),
                    on(HOST), countBy(cmp(select(ProbeMetrics.WINDOW_SAMPLES), Op.GT, 0), HOST)));

    public static final RuleDef MEMORY_PRESSURE_WARNING = new RuleDef("MemoryPressureWarning", Severity.WARNING,
            ValueKind.LEVEL, ValueKind.LEVEL, 1.0, Duration.ofMinutes(5),
            "Memory pressure at warning or above",
            "Memory pressure level is {value} (0 normal, 1 warning, 2 critical) for {for}.",
            p -> cmp(select(HostMetrics.PRESSURE_LEVEL), Op.GE, p.threshold()));

    public static final RuleDef MEMORY_PRESSURE_CRITICAL = new RuleDef("MemoryPressureCritical", Severity.CRITICAL,
            ValueKind.LEVEL, ValueKind.LEVEL, 2.0, Duration.ofMinutes(1),
            "Memory pressure critical",
            "Memory pressure level is {value} (critical) for {for}: the host is compressing and swapping hard.",
            p -> cmp(select(HostMetrics.PRESSURE_LEVEL), Op.GE, p.threshold()));

    public static final RuleDef THERMAL_THROTTLING = new RuleDef("ThermalThrottling", Severity.WARNING,
            ValueKind.NUMBER, ValueKind.RATIO, 0.8, Duration.ofMinutes(2),
            "Thermal throttling (heavy thermal pressure, CPU speed limit below {threshold}, or throttle events)",
            "Thermal pressure level >= 2, the CPU speed limit (the highest speed the CPU is allowed) below {threshold}, or thermal throttle events in the last 2m; value {value} (a level of 2 or more, the speed-limit ratio, or the number of throttle events).",
            p -> or(or(cmp(select(HostMetrics.THERMAL_LEVEL), Op.GE, THERMAL_HEAVY),
                            cmp(select(HostMetrics.CPU_SPEED_LIMIT), Op.LT, p.threshold())),
                    cmp(increase(select(HostMetrics.CPU_THROTTLE_EVENTS), THROTTLE_SPAN), Op.GT, 0)));

    public static final RuleDef ENGINE_DOWN = new RuleDef("EngineDown", Severity.CRITICAL,
            ValueKind.LEVEL, null, null, Duration.ofMinutes(1),
            "Engine {engine} is down",
            "The health check of engine {engine}, which had answered before, has failed for {for} (an engine that reports it is loading is not down).",
            p -> unless(unless(cmp(select(EngineMetrics.UP), Op.EQ, 0), on("job", "instance", ENGINE),
                            cmp(select(EngineMetrics.LOADING), Op.EQ, 1)), on("job", "instance", ENGINE),
                    cmp(select(EngineMetrics.REACHED), Op.EQ, 0)));

    public static final RuleDef PROBE_ERRORS = new RuleDef("ProbeErrors", Severity.WARNING,
            ValueKind.RATIO, ValueKind.RATIO, 0.1, Duration.ofMinutes(5),
            "Probe errors on {engine}/{scenario}",
            "{value} of the probes of {engine} ({model}, scenario {scenario}) failed over the window (threshold {threshold}, at least 3 failures, for {for}).",
            p -> and(cmp(select(ProbeMetrics.WINDOW_ERROR_RATIO), Op.GT, p.threshold()), on(WINDOW),
                    cmp(mul(select(ProbeMetrics.WINDOW_ERROR_RATIO), Matching.ALL, select(ProbeMetrics.WINDOW_SAMPLES)),
                            // ratio x samples is the failure count up to rounding: compare half a failure lower.
                            Op.GT, PROBE_ERRORS_MIN_FAILURES - 0.5)));

    public static final RuleDef TAIL_LATENCY_SPREAD = new RuleDef("TailLatencySpread", Severity.WARNING,
            ValueKind.FACTOR, ValueKind.FACTOR, 3.0, Duration.ofMinutes(10),
            "p99 latency far above p95 on {engine}/{scenario}",
            "Window p99 end-to-end latency is {value} the p95 (threshold {threshold}) on {engine} ({model}, scenario {scenario}): suspect swap or background jobs (Spotlight, backup, sync).",
            p -> and(cmp(div(e2e(Percentile.P99), ignoring(PERCENTILE), cmp(e2e(Percentile.P95), Op.GT, 0)), Op.GT, p.threshold()),
                    on(WINDOW), cmp(select(ProbeMetrics.WINDOW_SAMPLES), Op.GE, MIN_SPREAD_SAMPLES)));

    public static final RuleDef LATENCY_OVER_BASELINE = new RuleDef("LatencyOverBaseline", Severity.WARNING,
            ValueKind.FACTOR, ValueKind.FACTOR, 3.0, Duration.ofMinutes(10),
            "p95 latency {value} the single-request baseline on {engine}/{scenario}",
            "Window p95 end-to-end latency is {value} the single-request baseline p95 (threshold {threshold}) on {engine} ({model}, scenario {scenario}) for {for}: rate-limit or split lanes.",
            p -> cmp(div(e2e(Percentile.P95), ignoring(PERCENTILE), cmp(select(AlertMetrics.BASELINE_E2E_P95), Op.GT, 0)),
                    Op.GE, p.threshold()));

    public static final RuleDef TTFT_OVER_SLO = new RuleDef("TtftOverSlo", Severity.WARNING,
            ValueKind.SECONDS, ValueKind.SECONDS, 0.5, Duration.ofMinutes(10),
            "TTFT p95 above {threshold} on {engine}/{scenario}",
            "Window p95 time to first token is {value} (SLO {threshold}) on {engine} ({model}, interactive scenario {scenario}) for {for}.",
            p -> cmp(select(ProbeMetrics.WINDOW_TTFT, Percentile.P95, AttrKeys.SCENARIO + "=~", interactive(p.interactiveScenarios())),
                    Op.GT, p.threshold()));

    public static final RuleDef KV_HEADROOM_LOW = new RuleDef("KvHeadroomLow", Severity.WARNING,
            ValueKind.TOKENS, ValueKind.FACTOR, 1.0, Duration.ofMinutes(2),
            "KV-cache headroom below the context length on {engine}/{model}",
            "Only {value} tokens of KV cache fit in available memory, less than {threshold} the context length of {model} on {engine}: a long conversation will push the host into swap.",
            p -> cmp(select(EngineMetrics.KV_HEADROOM), Op.LT, Matching.ALL, times(select(EngineMetrics.MODEL_CONTEXT), p.threshold())));

    public static final RuleDef GPU_MEMORY_LIMIT_NEAR = new RuleDef("GpuMemoryLimitNear", Severity.WARNING,
            ValueKind.RATIO, ValueKind.RATIO, 0.9, Duration.ofMinutes(2),
            "{model} on {engine} near the GPU working-set limit",
            "{model} on {engine} holds {value} of the GPU working-set limit with its footprint plus its context's KV cache (threshold {threshold}, for {for}). Past the limit Metal allocations fail or spill, and prefill of a long prompt is where it shows first: shrink --max-kv-size or the slots, quantize smaller, or raise iogpu.wired_limit_mb.",
            p -> cmp(select(EngineMetrics.GPU_MEMORY_SHARE), Op.GT, p.threshold()));

    private static Expr laneRequests(int min) {
        return cmp(select(ProxyMetrics.LANE_WINDOW_REQUESTS), Op.GE, min);
    }

    private static Expr laneOver(MetricDef window, MetricDef limit) {
        return cmp(select(window, Percentile.P95), Op.GT, on(LANE_OF).keepingLeft(), select(limit));
    }

    public static final RuleDef LANE_SLO_MISSED = new RuleDef("LaneSloMissed", Severity.WARNING,
            ValueKind.SECONDS, null, null, Duration.ofMinutes(5),
            "Lane {lane} on {engine} missing its SLO",
            "Real requests of lane {lane} through the proxy of {engine} have a p95 of {value} over the last 5m (time to first token, or end to end when the first token is within its limit), above the lane's SLO, for {for} (at least 20 requests in the window).",
            p -> and(or(laneOver(ProxyMetrics.LANE_WINDOW_TTFT, ProxyMetrics.LANE_SLO_TTFT), on(LANE_OF),
                            laneOver(ProxyMetrics.LANE_WINDOW_E2E, ProxyMetrics.LANE_SLO_E2E)),
                    on(LANE_OF), laneRequests(MIN_LANE_REQUESTS)));

    public static final RuleDef LANE_GOODPUT_LOW = new RuleDef("LaneGoodputLow", Severity.WARNING,
            ValueKind.RATIO, null, null, Duration.ofMinutes(10),
            "Goodput of lane {lane} on {engine} below its target",
            "Only {value} of the real requests of lane {lane} through the proxy of {engine} met the lane's SLO over the last 5m, below the lane's target, for {for} (at least 20 requests in the window).",
            p -> and(cmp(select(ProxyMetrics.LANE_WINDOW_GOODPUT), Op.LT, on(LANE_OF).keepingLeft(), select(ProxyMetrics.LANE_SLO_TARGET)),
                    on(LANE_OF), laneRequests(MIN_LANE_REQUESTS)));

    public static final RuleDef LANE_QUEUE_WAIT_HIGH = new RuleDef("LaneQueueWaitHigh", Severity.WARNING,
            ValueKind.SECONDS, ValueKind.SECONDS, 2.0, Duration.ofMinutes(5),
            "Lane {lane} waits {value} for {engine}",
            "Real requests of lane {lane} waited {value} (p95 over the last 5m, threshold {threshold}, for {for}) for the response headers of {engine}: they queue behind other requests. tailwatch diagnose names the lane holding the engine.",
            p -> and(cmp(select(ProxyMetrics.LANE_WINDOW_QUEUE_WAIT, Percentile.P95), Op.GT, p.threshold()),
                    on(LANE_OF), laneRequests(MIN_LANE_QUEUE_REQUESTS)));

    public static final RuleDef SAMPLER_FAILING = new RuleDef("SamplerFailing", Severity.WARNING,
            ValueKind.LEVEL, null, null, SAMPLER_FAILING_FOR,
            "Sampler {sampler} failing",
            "The {sampler} sampler has failed every run for {for}: its signals are missing, so the rules that read them cannot fire.",
            p -> cmp(select(SelfMetrics.SAMPLER_SUCCESS), Op.EQ, 0));

    public static final RuleDef OTLP_EXPORT_FAILING = new RuleDef("OtlpExportFailing", Severity.WARNING,
            ValueKind.COUNT, ValueKind.COUNT, 3.0, Duration.ZERO,
            "OTLP export failing",
            "{value} OTLP metric exports failed within 15m (threshold {threshold}): the collector is unreachable or refusing data, so metrics pushed over OTLP have gaps.",
            p -> cmp(increase(select(SelfMetrics.OTLP_EXPORT_FAILURES), SELF_SPAN), Op.GE, p.threshold()));

    public static final RuleDef WEBHOOK_NOTIFICATIONS_DROPPED = new RuleDef("WebhookNotificationsDropped", Severity.WARNING,
            ValueKind.COUNT, ValueKind.COUNT, 1.0, Duration.ZERO,
            "Alert notifications lost ({outcome})",
            "{value} webhook notifications were {outcome} within 15m (threshold {threshold}): alerts did not reach the receiver.",
            p -> cmp(increase(select(SelfMetrics.WEBHOOK_NOTIFICATIONS, AttrKeys.WEBHOOK_OUTCOME + "=~",
                    anyOf(WebhookOutcome.DROPPED, WebhookOutcome.FAILED)), SELF_SPAN),
                    Op.GE, p.threshold()));

    /**
     * An agent that pushes OTLP (through the kit's Collector into Prometheus) has no {@code up}; Prometheus' OTLP
     * translation gives each pushing agent a {@code target_info{job="tailwatch", instance=<service.instance.id>}}
     * series with every push. An instance that had {@code up} within the hour is a scraped one and left to
     * {@code up}; for the others this is 1 while a push came within {@code PUSH_SILENCE}, 0 for up to an hour
     * after the last one (then Prometheus' data for it is gone, as a target leaving service discovery is).
     */
    static String pushedUp(String selector) {
        String info = "target_info{job=\"" + PROMETHEUS_JOB + "\"" + selector + "}";
        String scraped = "max by (job, instance) (max_over_time(up{job=\"" + PROMETHEUS_JOB + "\"" + selector + "}[1h]))";
        return "((max by (job, instance) (present_over_time(" + info + "[" + PUSH_SILENCE + "]))) or (0 * max by (job, instance) "
                + "(present_over_time(" + info + "[1h])))) unless on(job, instance) (" + scraped + ")";
    }

    /** How long a pushing agent may be silent before TailwatchDown counts it down (two default export intervals). */
    static final String PUSH_SILENCE = "2m";

    /**
     * The agent's liveness on either path, {@code instanceSelector} like {@code , instance=~"$host"} or empty:
     * the scrape target's {@code up}, or for a pushing agent {@link #pushedUp}. 1 up, 0 down. The host
     * dashboard's agent panel and the Grafana TailwatchDown query read it.
     */
    public static String agentUp(String instanceSelector) {
        return "(up{job=\"" + PROMETHEUS_JOB + "\"" + instanceSelector + "}) or (" + pushedUp(instanceSelector) + ")";
    }

    public static final RuleDef TAILWATCH_DOWN = new RuleDef("TailwatchDown", Severity.CRITICAL,
            ValueKind.LEVEL, null, null, Duration.ofMinutes(2),
            "tailwatch agent down or gone",
            "Prometheus cannot scrape the tailwatch agent (job " + PROMETHEUS_JOB + "), it has stopped pushing, or Prometheus has no target for it and no push from it, for {for}: nothing on this host is being watched.",
            p -> Expr.prometheusOnly("(up{job=\"" + PROMETHEUS_JOB + "\"} == 0) or ((" + pushedUp("") + ") == 0) or (absent(up{job=\""
                    + PROMETHEUS_JOB + "\"}) and absent(target_info{job=\"" + PROMETHEUS_JOB + "\"}))"));

    /** All rules, in the order they are documented and exported. */
    public static final List<RuleDef> ALL = List.of(SWAP_USED_HIGH, SWAP_GROWTH_UNDER_LOAD, MEMORY_PRESSURE_WARNING,
            MEMORY_PRESSURE_CRITICAL, THERMAL_THROTTLING, ENGINE_DOWN, PROBE_ERRORS, TAIL_LATENCY_SPREAD,
            LATENCY_OVER_BASELINE, TTFT_OVER_SLO, KV_HEADROOM_LOW, GPU_MEMORY_LIMIT_NEAR, LANE_SLO_MISSED, LANE_GOODPUT_LOW,
            LANE_QUEUE_WAIT_HIGH, SAMPLER_FAILING, OTLP_EXPORT_FAILING, WEBHOOK_NOTIFICATIONS_DROPPED, TAILWATCH_DOWN);

    /** Rules only Prometheus and Grafana evaluate: the agent cannot report its own absence. */
    public static final Set<String> EXPORT_ONLY = Set.of(TAILWATCH_DOWN.name());

    /** Whether the agent evaluates this rule itself. */
    public static boolean agentEvaluated(RuleDef rule) {
        return !EXPORT_ONLY.contains(rule.name());
    }

    public static RuleDef byName(String name) {
        for (RuleDef r : ALL) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    /** Regex over the interactive scenario names; matches nothing when there are none. */
    static String interactive(List<String> names) {
        if (names.isEmpty()) {
            return "";
        }
        return String.join("|", names.stream().sorted().distinct().map(Rules::escape).toList());
    }

    /** Escapes regex metacharacters so a scenario name matches itself (names are plain words in practice). */
    private static String escape(String name) {
        return REGEX_META.matcher(name).replaceAll("\\\\$0");
    }

    private static final Pattern REGEX_META = Pattern.compile("[\\\\.^$|?*+()\\[\\]{}]");
}
