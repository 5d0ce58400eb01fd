package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.daemon.alerts.Transition;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.testing.SimClock;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Loading is bounded: an OpenAI-compatible engine answering /health 503 for longer than its
 * health.loading_limit is down and pages EngineDown; one that finishes loading within it pages nobody.
 * The simulator serves the real wire; simulated time drives the health checks and the rules.
 */
class LoadingLimitTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static EngineConfig engine(int port, String health) throws Exception {
        return Config.parse("""
                engines:
                  - name: loader
                    api: openai
                    url: http://127.0.0.1:%d
                %s""".formatted(port, health), "t", Map.of()).engines().get(0);
    }

    @Test
    void anEngineThatSaysLoadingForeverIsDownPastTheLimitAndEngineDownFires() throws Exception {
        SimClock clock = new SimClock(T0);
        MetricHub hub = new MetricHub();
        RuleEngine rules = new RuleEngine(Config.defaults(Map.of()).rules(), List.of(), hub, null, 20, Duration.ofMinutes(15));
        List<Transition> transitions = new CopyOnWriteArrayList<>();
        rules.addListener(transitions::add);
        SimulatorOptions forever = SimulatorOptions.defaults("openai").withLoadTime(Duration.ofHours(2));
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, forever)) {
            EngineConfig e = engine(sim.port(), "");
            assertThat(e.loadingLimit()).isEqualTo(EngineConfig.DEFAULT_LOADING_LIMIT).isEqualTo(Duration.ofMinutes(10));
            EngineWatch w = new EngineWatch(e, hub, () -> null, clock, 100);
            try {
                // Within the limit: loading, nothing pending or firing.
                for (int i = 0; i < 40; i++) { // 0 .. 9m45s
                    w.checkHealth();
                    rules.evaluate(clock.instant());
                    clock.advance(Duration.ofSeconds(15));
                }
                assertThat(w.state()).isEqualTo("loading");
                assertThat(hub.snapshot().value(EngineMetrics.LOADING, AttrKeys.ENGINE, "loader")).isEqualTo(1.0);
                assertThat(transitions).isEmpty();
                // Past it (10m) the engine is down; EngineDown fires after its for (1m).
                for (int i = 0; i < 6; i++) { // 10m .. 11m15s
                    w.checkHealth();
                    rules.evaluate(clock.instant());
                    clock.advance(Duration.ofSeconds(15));
                }
                assertThat(w.state()).isEqualTo("down");
                assertThat(w.health().error()).contains("longer than health.loading_limit (10m)");
                assertThat(hub.snapshot().value(EngineMetrics.LOADING, AttrKeys.ENGINE, "loader")).isEqualTo(0.0);
                assertThat(hub.snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "loader")).isEqualTo(0.0);
                assertThat(rules.alerts()).singleElement().satisfies(a -> {
                    assertThat(a.name()).isEqualTo("EngineDown");
                    assertThat(a.state()).isEqualTo(AlertState.FIRING);
                    assertThat(a.firedAt()).isEqualTo(T0.plus(Duration.ofMinutes(11)).plusSeconds(15));
                });
            } finally {
                w.close();
            }
        }
    }

    @Test
    void anEngineThatFinishesLoadingWithinTheLimitPagesNobody() throws Exception {
        SimClock clock = new SimClock(T0);
        MetricHub hub = new MetricHub();
        RuleEngine rules = new RuleEngine(Config.defaults(Map.of()).rules(), List.of(), hub, null, 20, Duration.ofMinutes(15));
        List<Transition> transitions = new CopyOnWriteArrayList<>();
        rules.addListener(transitions::add);
        SimulatorOptions load = SimulatorOptions.defaults("openai").withLoadTime(Duration.ofMillis(1500));
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, load)) {
            EngineWatch w = new EngineWatch(engine(sim.port(), "    health: {interval: 15s, loading_limit: 30m}\n"), hub,
                    () -> null, clock, 100);
            try {
                w.checkHealth();
                assertThat(w.state()).isEqualTo("loading");
                // One simulated health interval per poll: at most 10 s / 100 ms x 15 s = 25 simulated minutes.
                Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    clock.advance(Duration.ofSeconds(15));
                    w.checkHealth();
                    rules.evaluate(clock.instant());
                    return "up".equals(w.state());
                });
                assertThat(w.loadingSince()).isNull();
                assertThat(transitions).isEmpty();
                assertThat(rules.alerts()).isEmpty();
            } finally {
                w.close();
            }
        }
    }

    @Test
    void theLimitIsValidated() {
        assertThatThrownBy(() -> engine(1, "    health: {interval: 30s, loading_limit: 20s}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("health.loading_limit").hasMessageContaining("not be shorter than health.interval");
        assertThatThrownBy(() -> engine(1, "    health: {loading_limit: 7h}\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("health.loading_limit");
        assertThatThrownBy(() -> engine(1, "    health: {loading_limit: soon}\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("health.loading_limit");
    }

    @Test
    void unsetTheLimitIsTheDefaultOrAHealthIntervalThatIsLonger() throws Exception {
        assertThat(engine(1, "").loadingLimit()).isEqualTo(EngineConfig.DEFAULT_LOADING_LIMIT);
        // An engine checked once an hour may say loading for one check; only an explicit shorter limit is an error.
        assertThat(engine(1, "    health: {interval: 1h}\n").loadingLimit()).isEqualTo(Duration.ofHours(1));
    }
}
