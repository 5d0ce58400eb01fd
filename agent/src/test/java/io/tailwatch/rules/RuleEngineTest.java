package io.tailwatch.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.config.RulesConfig;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every rule over synthetic hub series: firing, silent, and the pending/firing/resolved life cycle. */
class RuleEngineTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final double GIB = 1L << 30;

    @TempDir
    Path dir;

    private MetricHub hub;
    private RuleEngine engine;
    private final List<Transition> transitions = new ArrayList<>();

    @BeforeEach
    void setUp() {
        hub = new MetricHub();
        engine = newEngine(RulesConfig.defaults());
    }

    private RuleEngine newEngine(RulesConfig config) {
        RuleEngine e = new RuleEngine(config, List.of("interactive"), hub, BaselineStore.open(dir.resolve("b.json")), 20,
                Duration.ofMinutes(15));
        e.addListener(transitions::add);
        return e;
    }

    private void host(Point... points) {
        hub.publish("test/host", List.of(points));
    }

    private void probes(Point... points) {
        hub.publish("test/probes", List.of(points));
    }

    private static Point swap(double used) {
        return Point.of(HostMetrics.PAGING_USAGE, used, "system.paging.state", "used");
    }

    private static Point window(io.tailwatch.metrics.MetricDef def, String q, double v) {
        return Point.of(def, v, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive", AttrKeys.PERCENTILE, q);
    }

    private static Point samples(double n) {
        return Point.of(ProbeMetrics.WINDOW_SAMPLES, n, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive");
    }

    private Alert alert(String name) {
        return engine.alerts().stream().filter(a -> a.name().equals(name)).findFirst().orElse(null);
    }

    private String state(String name) {
        Alert a = alert(name);
        return a == null ? null : a.state();
    }

    /** Runs cycles every 30 s from {@code from} for {@code span}. */
    private Instant run(Instant from, Duration span) {
        Instant t = from;
        engine.evaluate(t);
        while (t.isBefore(from.plus(span))) {
            t = t.plusSeconds(30);
            engine.evaluate(t);
        }
        return t;
    }

    @Test
    void swapUsedHighPendsThenFiresThenResolves() {
        host(swap(2 * GIB));
        engine.evaluate(T0);
        assertThat(state("SwapUsedHigh")).isEqualTo("pending");
        engine.evaluate(T0.plusSeconds(90));
        assertThat(state("SwapUsedHigh")).isEqualTo("pending");
        engine.evaluate(T0.plusSeconds(120));
        Alert a = alert("SwapUsedHigh");
        assertThat(a.state()).isEqualTo("firing");
        assertThat(a.value()).isEqualTo(2 * GIB);
        assertThat(a.threshold()).isEqualTo(GIB);
        assertThat(a.description()).contains("2.00 GiB of swap", "threshold 1.00 GiB");
        assertThat(a.evidence()).containsEntry("swap_used_bytes", 2 * GIB);
        assertThat(a.runbook()).isEqualTo("docs/runbook.md#SwapUsedHigh");
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh", AttrKeys.ALERT_SEVERITY, "warning"))
                .isEqualTo(1.0);

        host(swap(GIB)); // exactly the threshold is not above it
        engine.evaluate(T0.plusSeconds(150));
        assertThat(state("SwapUsedHigh")).isEqualTo("resolved");
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh")).isNull();
        assertThat(transitions).extracting(t -> t.from() + ">" + t.to())
                .containsExactly("inactive>pending", "pending>firing", "firing>resolved");

        // Resolved alerts stay listed for the retention, then go.
        engine.evaluate(T0.plus(Duration.ofMinutes(20)));
        assertThat(alert("SwapUsedHigh")).isNull();
    }

    @Test
    void pendingAlertIsPublishedAsZeroAndDroppedWhenTheConditionEnds() {
        host(swap(2 * GIB));
        engine.evaluate(T0);
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh")).isEqualTo(0.0);
        host(swap(0));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(alert("SwapUsedHigh")).isNull();
        assertThat(transitions).extracting(Transition::to).containsExactly("pending", "inactive");
        assertThat(transitions).noneMatch(Transition::notifiable);
    }

    @Test
    void swapGrowthUnderLoadNeedsProbesRunning() {
        host(swap(0));
        engine.evaluate(T0);
        host(swap(3 * GIB));
        engine.evaluate(T0.plusSeconds(60));
        assertThat(state("SwapGrowthUnderLoad")).as("no probe windows: not under load").isNull();
        probes(samples(5));
        engine.evaluate(T0.plusSeconds(90));
        Alert a = alert("SwapGrowthUnderLoad");
        assertThat(a.state()).as("for 0: fires at once").isEqualTo("firing");
        assertThat(a.value()).isEqualTo(3 * GIB);
        assertThat(a.evidence()).containsEntry("swap_change_10m_bytes", 3 * GIB);
    }

    @Test
    void memoryPressureWarningAndCritical() {
        host(Point.of(HostMetrics.PRESSURE_LEVEL, 1));
        Instant t = run(T0, Duration.ofMinutes(5));
        assertThat(state("MemoryPressureWarning")).isEqualTo("firing");
        assertThat(state("MemoryPressureCritical")).isNull();
        host(Point.of(HostMetrics.PRESSURE_LEVEL, 2));
        run(t, Duration.ofMinutes(1));
        assertThat(state("MemoryPressureCritical")).isEqualTo("firing");
        assertThat(alert("MemoryPressureCritical").severity()).isEqualTo("critical");
        assertThat(engine.alerts().get(0).name()).as("worst first").isEqualTo("MemoryPressureCritical");
    }

    @Test
    void thermalThrottlingOnHeavyPressureOrSpeedLimit() {
        host(Point.of(HostMetrics.THERMAL_LEVEL, 1), Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.85));
        Instant t = run(T0, Duration.ofMinutes(3));
        assertThat(state("ThermalThrottling")).isNull();
        host(Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.6));
        run(t, Duration.ofMinutes(2));
        assertThat(state("ThermalThrottling")).isEqualTo("firing");
    }

    @Test
    void engineDownButNotWhileLoading() {
        probes(Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "mlx"), Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, "mlx"),
                Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "ollama"), Point.of(EngineMetrics.LOADING, 1, AttrKeys.ENGINE, "ollama"));
        run(T0, Duration.ofMinutes(1));
        assertThat(engine.alerts()).filteredOn(a -> a.name().equals("EngineDown"))
                .extracting(a -> a.labels().get(Rules.ENGINE) + ":" + a.state()).containsExactly("mlx:firing");
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "EngineDown", AttrKeys.ENGINE, "mlx",
                AttrKeys.ALERT_SEVERITY, "critical", AttrKeys.SCENARIO, "")).isEqualTo(1.0);
    }

    @Test
    void probeErrorsFireAtOnceAndCleanWindowsStaySilent() {
        probes(Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, 0, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive"));
        engine.evaluate(T0);
        assertThat(state("ProbeErrors")).isNull();
        probes(Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, 0.2, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive"));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(alert("ProbeErrors").state()).isEqualTo("firing");
        assertThat(alert("ProbeErrors").summary()).isEqualTo("Probe errors on mlx/interactive");
        assertThat(alert("ProbeErrors").description()).startsWith("20.0% of the probes of mlx (qwen, scenario interactive)");
    }

    @Test
    void tailLatencySpreadNeedsTwentySamplesAndTenMinutes() {
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 2), window(ProbeMetrics.WINDOW_E2E, "p99", 10), samples(19));
        Instant t = run(T0, Duration.ofMinutes(11));
        assertThat(state("TailLatencySpread")).as("19 samples").isNull();
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 2), window(ProbeMetrics.WINDOW_E2E, "p99", 10), samples(20));
        t = run(t, Duration.ofMinutes(9));
        assertThat(state("TailLatencySpread")).isEqualTo("pending");
        run(t, Duration.ofMinutes(1));
        Alert a = alert("TailLatencySpread");
        assertThat(a.state()).isEqualTo("firing");
        assertThat(a.value()).isEqualTo(5.0);
        assertThat(a.labels()).containsEntry(Rules.ENGINE, "mlx").containsEntry(Rules.SCENARIO, "interactive");
        assertThat(a.evidence()).containsKey("windows");
    }

    @Test
    void latencyOverBaselineUsesTheLearnedBaseline() {
        // Idle-time probes fill a window: its p95 becomes the baseline and is exported.
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 3.67), samples(20));
        engine.evaluate(T0);
        assertThat(hub.snapshot().value(AlertMetrics.BASELINE_E2E_P95, AttrKeys.ENGINE, "mlx")).isEqualTo(3.67);
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 35.01), samples(20));
        run(T0.plusSeconds(30), Duration.ofMinutes(10));
        Alert a = alert("LatencyOverBaseline");
        assertThat(a.state()).isEqualTo("firing");
        assertThat(a.valueText()).isEqualTo("9.54x");
        assertThat(hub.snapshot().value(AlertMetrics.BASELINE_E2E_P95, AttrKeys.ENGINE, "mlx")).as("baseline not overwritten")
                .isEqualTo(3.67);
    }

    @Test
    void ttftOverSloOnlyForInteractiveScenarios() {
        probes(Point.of(ProbeMetrics.WINDOW_TTFT, 0.9, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "batch", AttrKeys.PERCENTILE, "p95"));
        Instant t = run(T0, Duration.ofMinutes(11));
        assertThat(state("TtftOverSlo")).isNull();
        probes(window(ProbeMetrics.WINDOW_TTFT, "p95", 0.9));
        run(t, Duration.ofMinutes(10));
        assertThat(state("TtftOverSlo")).isEqualTo("firing");
        assertThat(alert("TtftOverSlo").valueText()).isEqualTo("900 ms");
    }

    @Test
    void kvHeadroomBelowContextLength() {
        probes(Point.of(EngineMetrics.KV_HEADROOM, 20000, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"),
                Point.of(EngineMetrics.MODEL_CONTEXT, 8192, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"));
        engine.evaluate(T0);
        assertThat(state("KvHeadroomLow")).isNull();
        probes(Point.of(EngineMetrics.KV_HEADROOM, 4000, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"),
                Point.of(EngineMetrics.MODEL_CONTEXT, 8192, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(state("KvHeadroomLow")).isEqualTo("firing");
    }

    @Test
    void configuredThresholdForAndEnabledApply() {
        Map<String, RulesConfig.RuleSettings> m = new LinkedHashMap<>(RulesConfig.defaults().settings());
        m.put("SwapUsedHigh", new RulesConfig.RuleSettings(3 * GIB, Duration.ZERO, true));
        m.put("MemoryPressureWarning", new RulesConfig.RuleSettings(1.0, Duration.ofMinutes(5), false));
        engine = newEngine(new RulesConfig(m));
        host(swap(2 * GIB), Point.of(HostMetrics.PRESSURE_LEVEL, 2));
        run(T0, Duration.ofMinutes(6));
        assertThat(state("SwapUsedHigh")).isNull();
        assertThat(state("MemoryPressureWarning")).isNull();
        assertThat(engine.enabledRules()).doesNotContain("MemoryPressureWarning");
        host(swap(4 * GIB));
        engine.evaluate(T0.plus(Duration.ofMinutes(7)));
        assertThat(state("SwapUsedHigh")).as("for 0s").isEqualTo("firing");
    }

    @Test
    void unknownSignalsNeverFire() {
        run(T0, Duration.ofMinutes(15));
        assertThat(engine.alerts()).isEmpty();
        assertThat(hub.snapshot().of(AlertMetrics.ALERT_ACTIVE)).isEmpty();
    }
}
