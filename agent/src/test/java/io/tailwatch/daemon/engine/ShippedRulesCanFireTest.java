package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.WindowRequirements;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.daemon.alerts.Alert;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.daemon.alerts.WebhookMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.metrics.SelfMetrics;
import io.tailwatch.testing.SimClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule of the shipped config can fire with the shipped settings: each window rule on each
 * shipped scenario (its interval, its window, probes arriving as late as the jitter allows, on a
 * simulated clock), and the host, engine and agent rules on their signals. A rule whose minimum
 * probe count cannot fit in its window (the old fixed 10-minute window at 60 s) never fires here.
 */
class ShippedRulesCanFireTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final double GIB = 1L << 30;

    @TempDir
    Path dir;

    private final Config shipped = shipped();
    private final AtomicInteger stores = new AtomicInteger();

    private static Config shipped() {
        try {
            return Config.defaults(Map.of());
        } catch (io.tailwatch.core.config.ConfigException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The shipped engines' scenarios, and the one an engine gets when it sets none (a discovered engine). */
    private List<EngineConfig.Scenario> shippedScenarios() throws Exception {
        List<EngineConfig.Scenario> out = new ArrayList<>();
        for (EngineConfig e : shipped.engines()) {
            out.addAll(e.scenarios());
        }
        out.addAll(Config.parse("engines: [{name: found, api: openai, url: 'http://127.0.0.1:8080'}]\n", "t", Map.of())
                .engines().get(0).scenarios());
        return out;
    }

    /** One simulated agent: the shipped rules over a hub, fed by one real probe window. */
    private final class Sim {
        final SimClock clock = new SimClock(T0);
        final MetricHub hub = new MetricHub();
        final RuleEngine rules;
        final Set<String> fired = new TreeSet<>();
        final EngineConfig.Scenario scenario;
        final ProbeWindow window;

        Sim(EngineConfig.Scenario scenario) {
            this.scenario = scenario;
            this.window = scenario == null ? null : new ProbeWindow(scenario.window(), ProbeWindow.DEFAULT_MAX_SAMPLES);
            rules = new RuleEngine(shipped.rules(), scenario != null && scenario.interactive() ? List.of(scenario.name()) : List.of(),
                    hub, BaselineStore.open(dir.resolve("baselines-" + stores.incrementAndGet() + ".json")),
                    shipped.alerts().baselineMinSamples(), shipped.alerts().resolvedRetention());
            rules.addListener(t -> {
                if (t.to() == AlertState.FIRING) {
                    fired.add(t.alert().name());
                }
            });
        }

        /** {@code n} probes, each as late as the jitter allows (interval + 10 %), rules evaluated after each. */
        void probes(int n, boolean success, double e2e, double ttft) {
            Duration step = Duration.ofMillis(Math.round(scenario.interval().toMillis() * (1 + WindowRequirements.JITTER)));
            for (int i = 0; i < n; i++) {
                Instant now = clock.advance(step);
                window.add(now, success, e2e, ttft);
                List<Point> points = new ArrayList<>();
                EngineWatch.windowPoints(points, "mlx", "qwen", scenario.name(), window.stats(now));
                hub.publish("probe/mlx", points);
                rules.evaluate(now);
            }
        }

        /** Host cycles at the shipped host interval for {@code span}; {@code points} gives each cycle's series. */
        void host(Duration span, java.util.function.IntFunction<List<Point>> points) {
            int cycles = (int) (span.toMillis() / shipped.host().interval().toMillis());
            for (int i = 0; i < cycles; i++) {
                Instant now = clock.advance(shipped.host().interval());
                hub.publish("host", points.apply(i));
                rules.evaluate(now);
            }
        }
    }

    private static final double OK = 1.0;

    @Test
    void everyWindowRuleFiresOnEveryShippedScenario() throws Exception {
        List<EngineConfig.Scenario> scenarios = shippedScenarios();
        assertThat(scenarios).isNotEmpty();
        for (EngineConfig.Scenario sc : scenarios) {
            // One stall in a full window: p99 is the stall, p95 is not.
            Sim spread = new Sim(sc);
            spread.probes(30, true, OK, 0.1);
            spread.probes(1, true, 10 * OK, 0.1);
            spread.probes(25, true, OK, 0.1);
            assertThat(spread.fired).as(sc + ": TailLatencySpread").contains("TailLatencySpread");

            // The first full window of idle probes is the baseline; then p95 quadruples.
            Sim baseline = new Sim(sc);
            baseline.probes(30, true, OK, 0.1);
            baseline.probes(40, true, 4 * OK, 0.1);
            assertThat(baseline.fired).as(sc + ": LatencyOverBaseline").contains("LatencyOverBaseline");

            // One probe in three fails.
            Sim errors = new Sim(sc);
            errors.probes(10, true, OK, 0.1);
            for (int i = 0; i < 12; i++) {
                errors.probes(2, true, OK, 0.1);
                errors.probes(1, false, OK, Double.NaN);
            }
            assertThat(errors.fired).as(sc + ": ProbeErrors").contains("ProbeErrors");

            if (sc.interactive()) {
                Sim ttft = new Sim(sc);
                ttft.probes(40, true, OK, 0.8);
                assertThat(ttft.fired).as(sc + ": TtftOverSlo").contains("TtftOverSlo");
            }
        }
    }

    @Test
    void aWindowTooShortForTheMinimumNeverFires() {
        // What the shipped interval gave before windows were a setting: 60 s probes in a fixed 10m window.
        EngineConfig.Scenario old = new EngineConfig.Scenario("interactive", Duration.ofSeconds(60), 64, 32, 0,
                Duration.ofSeconds(30), Duration.ofSeconds(50), true, Duration.ofMinutes(10));
        Sim spread = new Sim(old);
        spread.probes(30, true, OK, 0.1);
        spread.probes(1, true, 10 * OK, 0.1);
        spread.probes(25, true, OK, 0.1);
        Sim baseline = new Sim(old);
        baseline.probes(30, true, OK, 0.1);
        baseline.probes(40, true, 4 * OK, 0.1);
        assertThat(spread.fired).doesNotContain("TailLatencySpread");
        assertThat(baseline.fired).doesNotContain("LatencyOverBaseline");
    }

    @Test
    void everyHostEngineAndAgentRuleFiresWithTheShippedSettings() {
        Sim sim = new Sim(null);
        String[] window = {AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen", AttrKeys.SCENARIO, "interactive"};
        String[] lane = {AttrKeys.ENGINE, "mlx", AttrKeys.LANE, "interactive"};
        sim.host(Duration.ofMinutes(1), i -> List.of(Point.of(HostMetrics.PAGING_USAGE, 0, PagingState.USED)));
        sim.host(Duration.ofMinutes(12), i -> List.of(
                Point.of(HostMetrics.PAGING_USAGE, 3 * GIB, PagingState.USED),
                Point.of(HostMetrics.PAGING_OPERATIONS, 1000 + 30 * i, PagingDirection.IN),
                Point.of(HostMetrics.PRESSURE_LEVEL, 2),
                Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.6),
                Point.of(io.tailwatch.metrics.ProbeMetrics.WINDOW_SAMPLES, 12, window),
                Point.of(EngineMetrics.UP, 0, AttrKeys.ENGINE, "mlx"),
                Point.of(EngineMetrics.REACHED, 1, AttrKeys.ENGINE, "mlx"),
                Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, "mlx"),
                Point.of(EngineMetrics.KV_HEADROOM, 4000, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"),
                Point.of(EngineMetrics.MODEL_CONTEXT, 32768, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"),
                Point.of(EngineMetrics.GPU_MEMORY_SHARE, 0.95, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "qwen"),
                Point.of(ProxyMetrics.LANE_WINDOW_REQUESTS, 30, lane),
                Point.of(ProxyMetrics.LANE_WINDOW_TTFT, 0.9, Percentile.P95, lane),
                Point.of(ProxyMetrics.LANE_SLO_TTFT, 0.5, lane),
                Point.of(ProxyMetrics.LANE_WINDOW_GOODPUT, 0.5, lane),
                Point.of(ProxyMetrics.LANE_SLO_TARGET, 0.95, lane),
                Point.of(ProxyMetrics.LANE_WINDOW_QUEUE_WAIT, 3, Percentile.P95, lane),
                Point.of(SelfMetrics.SAMPLER_SUCCESS, 0, AttrKeys.SAMPLER, "swap"),
                Point.of(SelfMetrics.OTLP_EXPORT_FAILURES, i / 12),
                WebhookMetrics.points(Map.of("sent", 0L, "failed", 0L, "dropped", (long) i / 60, "suppressed_by_cooldown", 0L)).get(2)));
        Set<String> expected = new TreeSet<>();
        for (RuleDef d : Rules.ALL) {
            if (Rules.agentEvaluated(d) && !Set.of("TailLatencySpread", "LatencyOverBaseline", "TtftOverSlo", "ProbeErrors").contains(d.name())) {
                expected.add(d.name());
            }
        }
        assertThat(sim.fired).containsAll(expected);
        // TailwatchDown is the one rule the agent cannot evaluate (its own absence): promtool proves it.
        assertThat(Rules.ALL.stream().filter(d -> !Rules.agentEvaluated(d)).map(RuleDef::name)).containsExactly("TailwatchDown");
        assertThat(shipped.rules().settings().values()).allSatisfy(s -> assertThat(s.enabled()).isTrue());
    }
}
