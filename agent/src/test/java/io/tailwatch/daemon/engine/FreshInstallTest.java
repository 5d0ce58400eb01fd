package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.HostConfig;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.linux.LinuxSources;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Severity;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.daemon.alerts.RuleExport;
import io.tailwatch.daemon.alerts.Transition;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.testing.SimClock;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A first start pages nobody: the shipped config, on a quiet host where no engine runs, over half an
 * hour of simulated time with the real samplers (fixture procfs/sysfs), health checks against dead
 * loopback ports and the shipped rules. And an engine that was up and went down still pages.
 */
class FreshInstallTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(FreshInstallTest.class.getResource("/fixtures/" + name).toURI());
    }

    private static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static EngineConfig at(EngineConfig e, String name, int port) {
        return new EngineConfig(name, e.api(), URI.create("http://127.0.0.1:" + port), e.model(), e.apiKey(),
                e.healthInterval(), e.healthTimeout(), e.skipWhenPressureCritical(), e.scenarios(), e.processNames(),
                e.launchdLabel(), e.signals());
    }

    /** A hand-configured engine in the shipped shape (the engine section of the docs). */
    private static EngineConfig handConfigured(int port) throws Exception {
        return Config.parse("""
                engines:
                  - name: manual
                    api: openai
                    url: http://127.0.0.1:%d
                """.formatted(port), "t", Map.of()).engines().get(0);
    }

    /** Runs host samples every host interval, health checks every health interval, probes every scenario interval. */
    private static void run(SimClock clock, Duration span, HostSampling host, List<EngineWatch> watches, RuleEngine rules,
                            Duration step) {
        Instant end = clock.instant().plus(span);
        Instant start = clock.instant();
        while (clock.instant().isBefore(end)) {
            long elapsed = Duration.between(start, clock.instant()).toMillis();
            host.sampleOnce();
            for (EngineWatch w : watches) {
                if (elapsed % w.config().healthInterval().toMillis() == 0) {
                    w.checkHealth();
                }
                for (EngineConfig.Scenario s : w.config().scenarios()) {
                    if (elapsed % s.interval().toMillis() == 0) {
                        w.probe(s.name());
                    }
                }
            }
            rules.evaluate(clock.instant());
            clock.advance(step);
        }
    }

    @Test
    void shippedConfigOnAHostWithoutEnginesFiresNothing() throws Exception {
        Config shipped = Config.defaults(Map.of());
        Config config = new Config(shipped.source(), shipped.server(),
                new HostConfig(shipped.host().interval(), shipped.host().timeout(), fixture("fresh-host/proc"),
                        fixture("linux-cpu-idle/sys")),
                shipped.otlp(), shipped.engines(), shipped.rules(), shipped.alerts(), shipped.discovery());
        List<EngineConfig> engines = new ArrayList<>();
        for (EngineConfig e : shipped.engines()) {
            engines.add(at(e, e.name(), deadPort()));
        }
        engines.add(handConfigured(deadPort()));
        SimClock clock = new SimClock(T0);
        MetricHub hub = new MetricHub();
        List<Transition> transitions = new CopyOnWriteArrayList<>();
        try (HostSampling host = new HostSampling(LinuxSources.samplers(config), config.host().interval(),
                config.host().timeout(), hub, clock)) {
            List<EngineWatch> watches = new ArrayList<>();
            for (EngineConfig e : engines) {
                watches.add(new EngineWatch(e, hub, host::latest, clock, 1000));
            }
            RuleEngine rules = new RuleEngine(shipped.rules(), RuleExport.interactiveScenarios(config), hub,
                    BaselineStore.open(dir.resolve("b.json")), shipped.alerts().baselineMinSamples(),
                    shipped.alerts().resolvedRetention());
            rules.addListener(transitions::add);
            run(clock, Duration.ofMinutes(30), host, watches, rules, config.host().interval());

            assertThat(transitions).as("nothing pending, firing or sent").isEmpty();
            assertThat(rules.alerts()).isEmpty();
            assertThat(watches).allSatisfy(w -> {
                assertThat(w.state()).isEqualTo("never_reachable");
                assertThat(hub.snapshot().value(EngineMetrics.REACHED, io.tailwatch.metrics.AttrKeys.ENGINE, w.config().name())).isEqualTo(0.0);
            });
            assertThat(EngineStatus.of(watches)).allSatisfy(s -> {
                assertThat(s).containsEntry("state", "never_reachable").containsEntry("severity", "warning");
            });
            watches.forEach(EngineWatch::close);
        }
    }

    @Test
    void anEngineThatWasUpAndWentDownPagesEngineDown() throws Exception {
        SimClock clock = new SimClock(T0);
        MetricHub hub = new MetricHub();
        Config shipped = Config.defaults(Map.of());
        RuleEngine rules = new RuleEngine(shipped.rules(), List.of(), hub, null, 20, Duration.ofMinutes(15));
        EngineWatch w;
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"))) {
            w = new EngineWatch(handConfigured(sim.port()), hub, () -> null, clock, 1000);
            w.checkHealth();
            rules.evaluate(clock.instant());
            assertThat(w.state()).isEqualTo("up");
        }
        try {
            for (int i = 0; i < 6; i++) {
                clock.advance(Duration.ofSeconds(15));
                w.checkHealth();
                rules.evaluate(clock.instant());
            }
            assertThat(w.state()).isEqualTo("down");
            assertThat(hub.snapshot().value(EngineMetrics.REACHED, io.tailwatch.metrics.AttrKeys.ENGINE, "manual")).isEqualTo(1.0);
            assertThat(rules.alerts()).singleElement().satisfies(a -> {
                assertThat(a.name()).isEqualTo("EngineDown");
                assertThat(a.state()).isEqualTo(AlertState.FIRING);
                assertThat(a.severity()).isEqualTo(Severity.CRITICAL);
                assertThat(a.labels()).containsEntry(io.tailwatch.core.rules.Rules.ENGINE, "manual");
            });
        } finally {
            w.close();
        }
    }
}
