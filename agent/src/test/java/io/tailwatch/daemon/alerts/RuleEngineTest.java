package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.rules.Severity;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.metrics.SelfMetrics;
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
        return Point.of(HostMetrics.PAGING_USAGE, used, PagingState.USED);
    }

    private static Point paging(String direction, double count) {
        return Point.of(HostMetrics.PAGING_OPERATIONS, count, "system.paging.direction", direction);
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
        return a == null ? null : a.state().label();
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
        host(swap(2 * GIB), paging("in", 1000), paging("out", 5000));
        engine.evaluate(T0);
        assertThat(state("SwapUsedHigh")).as("one reading: no paging rate yet").isNull();
        host(swap(2 * GIB), paging("in", 1400), paging("out", 5000));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(state("SwapUsedHigh")).isEqualTo("pending");
        engine.evaluate(T0.plusSeconds(120));
        assertThat(state("SwapUsedHigh")).isEqualTo("pending");
        engine.evaluate(T0.plusSeconds(150));
        Alert a = alert("SwapUsedHigh");
        assertThat(a.state()).isEqualTo(AlertState.FIRING);
        assertThat(a.value()).isEqualTo(2 * GIB);
        assertThat(a.threshold()).isEqualTo(GIB);
        assertThat(a.description()).contains("2.00 GiB of swap", "threshold 1.00 GiB");
        assertThat(a.evidence()).containsEntry("swap_used_bytes", 2 * GIB);
        assertThat(a.runbook()).isEqualTo("docs/runbook.md#SwapUsedHigh");
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh", AttrKeys.ALERT_SEVERITY, "warning"))
                .isEqualTo(1.0);
        assertThat(hub.snapshot().of(AlertMetrics.ALERT_ACTIVE).get(0).attributes()).as("host alert: no engine/scenario")
                .doesNotContainKeys(AttrKeys.ENGINE, AttrKeys.SCENARIO);

        host(swap(GIB), paging("in", 1400), paging("out", 5000)); // exactly the threshold is not above it
        engine.evaluate(T0.plusSeconds(180));
        assertThat(state("SwapUsedHigh")).isEqualTo("resolved");
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh")).isNull();
        assertThat(transitions).extracting(t -> t.from().label() + ">" + t.to().label())
                .containsExactly("inactive>pending", "pending>firing", "firing>resolved");

        // Resolved alerts stay listed for the retention, then go.
        engine.evaluate(T0.plus(Duration.ofMinutes(20)));
        assertThat(alert("SwapUsedHigh")).isNull();
    }

    @Test
    void staleSwapWithoutPagingOrPressureStaysSilent() {
        // 6 GiB left in swap from an earlier episode, no page moved for an hour, pressure normal.
        host(swap(6 * GIB), paging("in", 4693446), paging("out", 6168528), Point.of(HostMetrics.PRESSURE_LEVEL, 0));
        run(T0, Duration.ofMinutes(60));
        assertThat(state("SwapUsedHigh")).isNull();
        // A few stray page-ins (below the minimum) do not make it "moving" either.
        host(swap(6 * GIB), paging("in", 4693446 + 9), paging("out", 6168528), Point.of(HostMetrics.PRESSURE_LEVEL, 0));
        run(T0.plus(Duration.ofMinutes(61)), Duration.ofMinutes(4));
        assertThat(state("SwapUsedHigh")).isNull();
    }

    @Test
    void swapUsedHighFiresOnPressureWithoutPagingCounters() {
        host(swap(2 * GIB), Point.of(HostMetrics.PRESSURE_LEVEL, 1));
        run(T0, Duration.ofMinutes(2));
        assertThat(state("SwapUsedHigh")).isEqualTo("firing");
    }

    @Test
    void pendingAlertIsPublishedAsZeroAndDroppedWhenTheConditionEnds() {
        host(swap(2 * GIB), Point.of(HostMetrics.PRESSURE_LEVEL, 1));
        engine.evaluate(T0);
        assertThat(hub.snapshot().value(AlertMetrics.ALERT_ACTIVE, AttrKeys.ALERT_NAME, "SwapUsedHigh")).isEqualTo(0.0);
        host(swap(0), Point.of(HostMetrics.PRESSURE_LEVEL, 1));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(alert("SwapUsedHigh")).isNull();
        assertThat(transitions).filteredOn(t -> t.alert().name().equals("SwapUsedHigh"))
                .extracting(t -> t.to().label()).containsExactly("pending", "inactive");
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
        assertThat(state("SwapGrowthUnderLoad")).as("one reading does not page").isEqualTo("pending");
        engine.evaluate(T0.plusSeconds(150));
        Alert a = alert("SwapGrowthUnderLoad");
        assertThat(a.state()).as("held for 1m").isEqualTo(AlertState.FIRING);
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
        assertThat(alert("MemoryPressureCritical").severity()).isEqualTo(Severity.CRITICAL);
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
    void thermalThrottlingOnRisingThrottleCountersOnly() {
        Point full = Point.of(HostMetrics.CPU_SPEED_LIMIT, 1.0);
        host(full, Point.of(HostMetrics.CPU_THROTTLE_EVENTS, 40, "tailwatch.cpu.throttle.scope", "core"));
        Instant t = run(T0, Duration.ofMinutes(5));
        assertThat(state("ThermalThrottling")).as("old events, not rising").isNull();
        double events = 40;
        Instant end = t.plus(Duration.ofMinutes(3));
        while (t.isBefore(end)) {
            events += 2;
            t = t.plusSeconds(30);
            host(full, Point.of(HostMetrics.CPU_THROTTLE_EVENTS, events, "tailwatch.cpu.throttle.scope", "core"));
            engine.evaluate(t);
        }
        assertThat(state("ThermalThrottling")).isEqualTo("firing");
    }

    @Test
    void engineDownButNotWhileLoading() {
        probes(Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "mlx"), Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, "mlx"),
                Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "ollama"), Point.of(EngineMetrics.LOADING, 1, AttrKeys.ENGINE, "ollama"));
        run(T0, Duration.ofMinutes(1));
        assertThat(engine.alerts()).filteredOn(a -> a.name().equals("EngineDown"))
                .extracting(a -> a.labels().get(Rules.ENGINE) + ":" + a.state().label()).containsExactly("mlx:firing");
        assertThat(hub.snapshot().of(AlertMetrics.ALERT_ACTIVE)).singleElement().satisfies(p -> {
            assertThat(p.value()).isEqualTo(1.0);
            assertThat(p.attributes()).as("no empty scenario label")
                    .isEqualTo(Map.of(AttrKeys.ALERT_NAME, "EngineDown", AttrKeys.ENGINE, "mlx", AttrKeys.ALERT_SEVERITY, "critical"));
        });
    }

    private static Point errorRatio(double r) {
        return Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, r, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive");
    }

    @Test
    void oneErrorAmongNineProbesDoesNotPage() {
        probes(errorRatio(1.0 / 9), samples(9));
        run(T0, Duration.ofMinutes(15));
        assertThat(state("ProbeErrors")).isNull();
    }

    @Test
    void manyErrorsButFewerThanThreeFailuresStaySilent() {
        // 2 of 4 probes failed: a high ratio, but only two failures.
        probes(errorRatio(0.5), samples(4));
        run(T0, Duration.ofMinutes(15));
        assertThat(state("ProbeErrors")).isNull();
    }

    @Test
    void probeErrorsFireAfterTheirForAndCleanWindowsStaySilent() {
        probes(errorRatio(0), samples(10));
        engine.evaluate(T0);
        assertThat(state("ProbeErrors")).isNull();
        probes(errorRatio(0.3), samples(10));
        Instant t = run(T0.plusSeconds(30), Duration.ofMinutes(4));
        assertThat(state("ProbeErrors")).as("3 of 10 failed: pending for 5m").isEqualTo("pending");
        run(t, Duration.ofMinutes(1));
        assertThat(alert("ProbeErrors").state()).isEqualTo(AlertState.FIRING);
        assertThat(alert("ProbeErrors").summary()).isEqualTo("Probe errors on mlx/interactive");
        assertThat(alert("ProbeErrors").description()).startsWith("30.0% of the probes of mlx (qwen, scenario interactive)");
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
        assertThat(a.state()).isEqualTo(AlertState.FIRING);
        assertThat(a.value()).isEqualTo(5.0);
        assertThat(a.labels()).containsEntry(Rules.ENGINE, "mlx").containsEntry(Rules.SCENARIO, "interactive");
        assertThat(a.evidence()).containsKey("windows");
    }

    /** p99 / p95 above the threshold (3 by default), strictly; a p95 of 0 is no ratio. */
    @Test
    void tailLatencySpreadIsTheRatioOfP99ToP95AboveItsThreshold() {
        Map<String, RulesConfig.RuleSettings> m = new LinkedHashMap<>(RulesConfig.defaults().settings());
        m.put("TailLatencySpread", new RulesConfig.RuleSettings(3.0, Duration.ZERO, true));
        engine = newEngine(new RulesConfig(m));
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 0.5), window(ProbeMetrics.WINDOW_E2E, "p99", 1.5), samples(20));
        engine.evaluate(T0);
        assertThat(state("TailLatencySpread")).as("exactly 3x is not above 3").isNull();
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 0.5), window(ProbeMetrics.WINDOW_E2E, "p99", 1.5001), samples(20));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(state("TailLatencySpread")).isEqualTo("firing");
        assertThat(alert("TailLatencySpread").value()).isCloseTo(3.0002, org.assertj.core.data.Offset.offset(1e-9));
        // The AlertsIT case: one 500 ms stall as p99 over 12 ms answers as p95.
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 0.012), window(ProbeMetrics.WINDOW_E2E, "p99", 0.514), samples(20));
        engine.evaluate(T0.plusSeconds(60));
        assertThat(alert("TailLatencySpread").value()).isCloseTo(0.514 / 0.012, org.assertj.core.data.Offset.offset(1e-9));
        probes(window(ProbeMetrics.WINDOW_E2E, "p95", 0), window(ProbeMetrics.WINDOW_E2E, "p99", 0.514), samples(20));
        engine.evaluate(T0.plusSeconds(90));
        assertThat(state("TailLatencySpread")).as("p95 of 0").isIn(null, "resolved");
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
        assertThat(a.state()).isEqualTo(AlertState.FIRING);
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
        assertThat(state("KvHeadroomLow")).as("one reading does not page").isEqualTo("pending");
        run(T0.plusSeconds(30), Duration.ofMinutes(2));
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
        host(swap(4 * GIB), Point.of(HostMetrics.PRESSURE_LEVEL, 2));
        engine.evaluate(T0.plus(Duration.ofMinutes(7)));
        assertThat(state("SwapUsedHigh")).as("for 0s").isEqualTo("firing");
    }

    @Test
    void runbookBaseUrlMakesTheLinkAbsolute() {
        engine = new RuleEngine(RulesConfig.defaults(), List.of(), hub, null, 20, Duration.ofMinutes(15),
                "https://wiki.example/tailwatch/runbook");
        host(Point.of(HostMetrics.PRESSURE_LEVEL, 2));
        engine.evaluate(T0);
        assertThat(alert("MemoryPressureCritical").runbook()).isEqualTo("https://wiki.example/tailwatch/runbook#MemoryPressureCritical");
    }

    @Test
    void samplerFailingForFiveMinutesFiresAndARecoveringOneStaysSilent() {
        host(Point.of(SelfMetrics.SAMPLER_SUCCESS, 0, AttrKeys.SAMPLER, "swap"), Point.of(SelfMetrics.SAMPLER_SUCCESS, 1, AttrKeys.SAMPLER, "memory"));
        Instant t = run(T0, Duration.ofMinutes(4));
        assertThat(state("SamplerFailing")).isEqualTo("pending");
        // One good run resets it: it must fail every run for the whole 5m.
        host(Point.of(SelfMetrics.SAMPLER_SUCCESS, 1, AttrKeys.SAMPLER, "swap"), Point.of(SelfMetrics.SAMPLER_SUCCESS, 1, AttrKeys.SAMPLER, "memory"));
        t = run(t.plusSeconds(30), Duration.ofSeconds(30));
        assertThat(state("SamplerFailing")).isNull();
        host(Point.of(SelfMetrics.SAMPLER_SUCCESS, 0, AttrKeys.SAMPLER, "swap"), Point.of(SelfMetrics.SAMPLER_SUCCESS, 1, AttrKeys.SAMPLER, "memory"));
        run(t.plusSeconds(30), Duration.ofMinutes(5));
        Alert a = alert("SamplerFailing");
        assertThat(a.state()).isEqualTo(AlertState.FIRING);
        assertThat(a.labels()).containsEntry(Rules.SAMPLER, "swap");
        assertThat(a.summary()).isEqualTo("Sampler swap failing");
    }

    @Test
    void otlpExportFailingNeedsThreeFailuresWithinFifteenMinutes() {
        Instant t = T0;
        for (double failures : new double[] {0, 0, 1, 1, 2, 2}) {
            host(Point.of(SelfMetrics.OTLP_EXPORT_FAILURES, failures));
            engine.evaluate(t);
            t = t.plusSeconds(60);
        }
        assertThat(state("OtlpExportFailing")).as("2 failures").isNull();
        host(Point.of(SelfMetrics.OTLP_EXPORT_FAILURES, 3));
        engine.evaluate(t);
        assertThat(state("OtlpExportFailing")).isEqualTo("firing");
        assertThat(alert("OtlpExportFailing").valueText()).isEqualTo("3");
        // Exports work again: once the failures are older than 15m it resolves.
        run(t.plusSeconds(60), Duration.ofMinutes(16));
        assertThat(state("OtlpExportFailing")).isEqualTo("resolved");
    }

    @Test
    void droppedOrFailedWebhookNotificationsFireButSentAndSuppressedDoNot() {
        host(webhook(40, 0, 0, 3));
        engine.evaluate(T0);
        host(webhook(55, 0, 0, 9));
        engine.evaluate(T0.plusSeconds(30));
        assertThat(state("WebhookNotificationsDropped")).isNull();
        host(webhook(55, 1, 2, 9));
        engine.evaluate(T0.plusSeconds(60));
        assertThat(engine.alerts()).filteredOn(a -> a.name().equals("WebhookNotificationsDropped"))
                .extracting(a -> a.labels().get(Rules.WEBHOOK_OUTCOME) + ":" + a.state().label())
                .containsExactlyInAnyOrder("dropped:firing", "failed:firing");
    }

    private static Point[] webhook(double sent, double failed, double dropped, double suppressed) {
        return WebhookMetrics.points(Map.of("sent", (long) sent, "failed", (long) failed, "dropped", (long) dropped,
                "suppressed_by_cooldown", (long) suppressed)).toArray(new Point[0]);
    }

    @Test
    void tailwatchDownIsLeftToPrometheusAndGrafana() {
        assertThat(engine.enabledRules()).doesNotContain("TailwatchDown").contains("SamplerFailing");
        run(T0, Duration.ofMinutes(5));
        assertThat(engine.alerts()).isEmpty();
    }

    @Test
    void unknownSignalsNeverFire() {
        run(T0, Duration.ofMinutes(15));
        assertThat(engine.alerts()).isEmpty();
        assertThat(hub.snapshot().of(AlertMetrics.ALERT_ACTIVE)).isEmpty();
    }
}
