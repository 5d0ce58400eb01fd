package io.tailwatch.rules;

import static io.tailwatch.rules.Expr.Matching.ignoring;
import static io.tailwatch.rules.Expr.Matching.on;
import static io.tailwatch.rules.Expr.and;
import static io.tailwatch.rules.Expr.cmp;
import static io.tailwatch.rules.Expr.countBy;
import static io.tailwatch.rules.Expr.div;
import static io.tailwatch.rules.Expr.minOverTime;
import static io.tailwatch.rules.Expr.minus;
import static io.tailwatch.rules.Expr.or;
import static io.tailwatch.rules.Expr.select;
import static io.tailwatch.rules.Expr.times;
import static io.tailwatch.rules.Expr.unless;

import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.rules.Expr.Matching;
import io.tailwatch.rules.Expr.Op;
import java.time.Duration;
import java.util.List;
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
    static final String[] WINDOW = {"job", "instance", ENGINE, MODEL, SCENARIO};
    /** TailLatencySpread needs this many probes in the window before p99 means anything. */
    public static final int MIN_SPREAD_SAMPLES = 20;
    /** SwapGrowthUnderLoad compares against the lowest swap use over this span. */
    public static final Duration SWAP_GROWTH_SPAN = Duration.ofMinutes(10);
    /** ThermalThrottling: macOS thermal pressure at or above "heavy". */
    public static final int THERMAL_HEAVY = 2;
    private static final long GIB = 1L << 30;

    private static Expr swapUsed() {
        return select(HostMetrics.PAGING_USAGE, "system.paging.state", "used");
    }

    private static Expr e2e(String percentile) {
        return select(ProbeMetrics.WINDOW_E2E, AttrKeys.PERCENTILE, percentile);
    }

    public static final RuleDef SWAP_USED_HIGH = new RuleDef("SwapUsedHigh", Severity.WARNING,
            ValueKind.BYTES, ValueKind.BYTES, (double) GIB, Duration.ofMinutes(2),
            "Swap in use above {threshold}",
            "{value} of swap is in use (threshold {threshold}, for {for}). Model weights or KV cache paged to SSD make decoding 10x slower or worse.",
            p -> cmp(swapUsed(), Op.GT, p.threshold()));

    public static final RuleDef SWAP_GROWTH_UNDER_LOAD = new RuleDef("SwapGrowthUnderLoad", Severity.CRITICAL,
            ValueKind.BYTES, ValueKind.BYTES, 2.0 * GIB, Duration.ZERO,
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
            "Thermal throttling (heavy thermal pressure or CPU speed limit below {threshold})",
            "Thermal pressure level >= 2 or CPU speed limit below {threshold}; value {value} (a level of 2 or more, or the speed-limit ratio).",
            p -> or(cmp(select(HostMetrics.THERMAL_LEVEL), Op.GE, THERMAL_HEAVY),
                    cmp(select(HostMetrics.CPU_SPEED_LIMIT), Op.LT, p.threshold())));

    public static final RuleDef ENGINE_DOWN = new RuleDef("EngineDown", Severity.CRITICAL,
            ValueKind.LEVEL, null, null, Duration.ofMinutes(1),
            "Engine {engine} is down",
            "The health check of engine {engine} has failed for {for} (an engine that reports it is loading is not down).",
            p -> unless(cmp(select(EngineMetrics.UP), Op.EQ, 0), on("job", "instance", ENGINE),
                    cmp(select(EngineMetrics.LOADING), Op.EQ, 1)));

    public static final RuleDef PROBE_ERRORS = new RuleDef("ProbeErrors", Severity.WARNING,
            ValueKind.RATIO, ValueKind.RATIO, 0.0, Duration.ZERO,
            "Probe errors on {engine}/{scenario}",
            "{value} of the probes of {engine} ({model}, scenario {scenario}) failed over the window.",
            p -> cmp(select(ProbeMetrics.WINDOW_ERROR_RATIO), Op.GT, p.threshold()));

    public static final RuleDef TAIL_LATENCY_SPREAD = new RuleDef("TailLatencySpread", Severity.WARNING,
            ValueKind.FACTOR, ValueKind.FACTOR, 3.0, Duration.ofMinutes(10),
            "p99 latency far above p95 on {engine}/{scenario}",
            "Window p99 end-to-end latency is {value} the p95 (threshold {threshold}) on {engine} ({model}, scenario {scenario}): suspect swap or background jobs (Spotlight, backup, sync).",
            p -> and(cmp(div(e2e("p99"), ignoring(PERCENTILE), cmp(e2e("p95"), Op.GT, 0)), Op.GT, p.threshold()),
                    on(WINDOW), cmp(select(ProbeMetrics.WINDOW_SAMPLES), Op.GE, MIN_SPREAD_SAMPLES)));

    public static final RuleDef LATENCY_OVER_BASELINE = new RuleDef("LatencyOverBaseline", Severity.WARNING,
            ValueKind.FACTOR, ValueKind.FACTOR, 3.0, Duration.ofMinutes(10),
            "p95 latency {value} the single-request baseline on {engine}/{scenario}",
            "Window p95 end-to-end latency is {value} the single-request baseline p95 (threshold {threshold}) on {engine} ({model}, scenario {scenario}) for {for}: rate-limit or split lanes.",
            p -> cmp(div(e2e("p95"), ignoring(PERCENTILE), cmp(select(AlertMetrics.BASELINE_E2E_P95), Op.GT, 0)),
                    Op.GE, p.threshold()));

    public static final RuleDef TTFT_OVER_SLO = new RuleDef("TtftOverSlo", Severity.WARNING,
            ValueKind.SECONDS, ValueKind.SECONDS, 0.5, Duration.ofMinutes(10),
            "TTFT p95 above {threshold} on {engine}/{scenario}",
            "Window p95 time to first token is {value} (SLO {threshold}) on {engine} ({model}, interactive scenario {scenario}) for {for}.",
            p -> cmp(select(ProbeMetrics.WINDOW_TTFT, AttrKeys.PERCENTILE, "p95", AttrKeys.SCENARIO + "=~", interactive(p.interactiveScenarios())),
                    Op.GT, p.threshold()));

    public static final RuleDef KV_HEADROOM_LOW = new RuleDef("KvHeadroomLow", Severity.WARNING,
            ValueKind.TOKENS, ValueKind.FACTOR, 1.0, Duration.ZERO,
            "KV-cache headroom below the context length on {engine}/{model}",
            "Only {value} tokens of KV cache fit in available memory, less than {threshold} the context length of {model} on {engine}: a long conversation will push the host into swap.",
            p -> cmp(select(EngineMetrics.KV_HEADROOM), Op.LT, Matching.ALL, times(select(EngineMetrics.MODEL_CONTEXT), p.threshold())));

    /** All rules, in the order they are documented and exported. */
    public static final List<RuleDef> ALL = List.of(SWAP_USED_HIGH, SWAP_GROWTH_UNDER_LOAD, MEMORY_PRESSURE_WARNING,
            MEMORY_PRESSURE_CRITICAL, THERMAL_THROTTLING, ENGINE_DOWN, PROBE_ERRORS, TAIL_LATENCY_SPREAD,
            LATENCY_OVER_BASELINE, TTFT_OVER_SLO, KV_HEADROOM_LOW);

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
