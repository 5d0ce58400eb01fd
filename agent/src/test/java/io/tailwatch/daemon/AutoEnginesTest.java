package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.DiscoveryConfig;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.daemon.engine.EngineDiscovery;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** engines: auto against the engine simulator on ports the test picks. */
class AutoEnginesTest {
    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void an_engine_that_starts_later_is_picked_up_at_the_next_check_and_watched_once() throws Exception {
        int port = freePort();
        MetricHub hub = new MetricHub();
        try (EngineMonitor engines = new EngineMonitor(List.of(), hub, () -> null, Clock.systemUTC());
             EngineSignalMonitor signals = new EngineSignalMonitor(List.of(), hub, Clock.systemUTC())) {
            engines.start();
            signals.start();
            AutoEngines auto = new AutoEngines(new DiscoveryConfig(true, false, List.of(port), Duration.ofMinutes(5)), engines,
                    signals, Clock.systemUTC(), ports -> EngineDiscovery.scan(AutoEngines.HOST, ports));
            assertThat(auto.ports()).containsExactly(port);
            // Nothing listens yet: nothing is watched, so nothing can page.
            assertThat(auto.check()).isEmpty();
            assertThat(engines.watches()).isEmpty();
            try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", port,
                    SimulatorOptions.defaults("openai").withModel("qwen3-8b-q4"))) {
                assertThat(auto.check()).containsExactly("llamacpp");
                assertThat(engines.watch("llamacpp").config().url().getPort()).isEqualTo(sim.port());
                assertThat(engines.watch("llamacpp").config().api()).isEqualTo("openai");
                assertThat(signals.watch("llamacpp")).isNotNull();
                // Found again: still one engine.
                assertThat(auto.check()).isEmpty();
                assertThat(engines.watches()).hasSize(1);
                @SuppressWarnings("unchecked")
                Map<String, Object> status = (Map<String, Object>) auto.status();
                assertThat(status.get("watching")).isEqualTo(List.of("llamacpp"));
                assertThat(status.get("last_check")).isNotNull();
            }
            // Gone again: it stays watched (and would be EngineDown), it is not forgotten.
            auto.check();
            assertThat(engines.watches()).hasSize(1);
        }
    }

    @Test
    void the_daemon_with_engines_auto_probes_what_it_finds_and_reports_discovery_in_status() throws Exception {
        Sampler none = new Sampler() {
            public String name() {
                return "none";
            }

            public List<io.tailwatch.metrics.Point> sample() {
                return List.of();
            }
        };
        try (EngineSimulator sim = EngineSimulator.start("ollama", "ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"))) {
            int closed = freePort();
            Config cfg = Config.parse("server:\n  listen: 127.0.0.1:0\nengines: auto\ndiscovery:\n  well_known_ports: false\n"
                    + "  ports: [" + sim.port() + ", " + closed + "]\n  interval: 30s\n", "test", Map.of());
            try (Daemon d = new Daemon(cfg, Map.of(), List.of(none)).start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> d.hub().snapshot()
                        .value(EngineMetrics.UP, AttrKeys.ENGINE, "ollama") != null);
                assertThat(d.hub().snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "ollama")).isEqualTo(1.0);
                JsonNode status = new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body());
                JsonNode disc = status.get("discovery");
                assertThat(disc.get("engines").asText()).isEqualTo("auto");
                assertThat(disc.get("watching").get(0).asText()).isEqualTo("ollama");
                assertThat(disc.get("ports").toString()).isEqualTo("[" + sim.port() + "," + closed + "]");
            }
        }
    }
    private static final Sampler NONE = new Sampler() {
        public String name() {
            return "none";
        }

        public List<io.tailwatch.metrics.Point> sample() {
            return List.of();
        }
    };

    @Test
    void an_engine_started_after_the_agent_is_found_within_the_port_watch_and_status_says_when_discovery_runs_next() throws Exception {
        int port = freePort();
        // The shipped interval (5m): without the port watch the simulator would wait up to five minutes.
        // A short port watch (the shipped one is 15s) so the test waits one short period, not the default.
        Duration portWatch = Duration.ofSeconds(1);
        Config cfg = Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines: auto\ndiscovery:\n"
                + "  well_known_ports: false\n  ports: [" + port + "]\n  interval: 5m\n  port_watch: 1s\n", "test", Map.of());
        assertThat(cfg.discovery().portWatch()).isEqualTo(portWatch);
        try (Daemon d = new Daemon(cfg, Map.of(), List.of(NONE)).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body())
                    .path("discovery").hasNonNull("last_check"));
            JsonNode disc = new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body()).path("discovery");
            java.time.Instant last = java.time.Instant.parse(disc.path("last_check").asText());
            java.time.Instant next = java.time.Instant.parse(disc.path("next_check").asText());
            // Right after start the checks come often: each next check one port watch, then twice that, ...
            // after the last, never the 5m interval.
            assertThat(Duration.between(last, next)).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(32))
                    .matches(w -> Long.bitCount(w.toMillis() / portWatch.toMillis()) == 1 && w.toMillis() % portWatch.toMillis() == 0,
                            "a power-of-two multiple of the port watch");
            assertThat(disc.path("port_watch").asText()).isEqualTo("1s");
            assertThat(d.engines().watches()).isEmpty();
            try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", port, SimulatorOptions.defaults("openai"))) {
                // The promise: a port that opens is seen at the next port watch and checked then, and a check
                // ends within its scan deadline. Awaitility fails the test past that bound.
                await().atMost(portWatch.plus(EngineDiscovery.SCAN_DEADLINE)).pollInterval(Duration.ofMillis(100))
                        .until(() -> d.engines().watch("llamacpp") != null);
                String screen = io.tailwatch.tools.runbook.StatusScreen.discovery(
                        new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body()).path("discovery"),
                        java.time.Instant.now().toString());
                assertThat(screen.replaceAll("\\s+", " ")).contains("DISCOVERY engines: auto; next check ")
                        .contains("a port that opens is checked within 1s");
            }
        }
    }

    @Test
    void the_shipped_port_watch_and_found_engines_health_interval_are_fifteen_seconds_and_the_config_bounds_them() throws Exception {
        Config shipped = Config.parse("engines: auto\n", "test", Map.of());
        assertThat(shipped.discovery().portWatch()).isEqualTo(Duration.ofSeconds(15));
        assertThatThrownBy(() -> Config.parse("engines: auto\ndiscovery:\n  port_watch: 2m\n", "test", Map.of()))
                .hasMessageContaining("port_watch");
        assertThat(shipped.discovery().healthInterval()).isEqualTo(Duration.ofSeconds(15))
                .isEqualTo(Config.parse("engines: [{name: e, api: openai, url: 'http://127.0.0.1:1'}]\n", "t", Map.of())
                        .engines().get(0).healthInterval());
        assertThatThrownBy(() -> Config.parse("engines: auto\ndiscovery:\n  health_interval: 500ms\n", "test", Map.of()))
                .hasMessageContaining("health_interval");
    }

    @Test
    void a_found_engine_that_stopped_keeps_paging_until_a_reload_forgets_it_and_its_alert_resolves() throws Exception {
        String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines: auto\ndiscovery:\n"
                + "  well_known_ports: false\n  ports: [%d]\n  interval: 5m\n  port_watch: 1s\n  health_interval: 1s\n"
                + "rules:\n  EngineDown: {for: 0s}\n";
        EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
        Config cfg = Config.parse(yaml.formatted(sim.port()), "test", Map.of());
        List<io.tailwatch.daemon.alerts.Transition> transitions = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ReloadingDaemon r = ReloadingDaemon.start(cfg, () -> cfg, "test", Map.of(), c -> new Daemon(c, Map.of(), List.of(NONE)),
                () -> { })) {
            Daemon d = r.daemon();
            d.rules().addListener(transitions::add);
            await().atMost(Duration.ofSeconds(30)).until(() -> d.engines().watch("llamacpp") != null
                    && "up".equals(d.engines().watch("llamacpp").state()));
            assertThat(d.engines().watch("llamacpp").config().healthInterval()).isEqualTo(Duration.ofSeconds(1));
            sim.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> d.rules().alerts().stream()
                    .anyMatch(a -> a.name().equals("EngineDown") && a.state() == io.tailwatch.core.rules.AlertState.FIRING));
            // Still watched and paging (it may have crashed); the port watch and later checks do not forget it.
            await().atMost(Duration.ofSeconds(40)).until(() -> {
                JsonNode disc = new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body()).path("discovery");
                return disc.path("missing").toString().equals("[\"llamacpp\"]");
            });
            assertThat(d.engines().watch("llamacpp")).isNotNull();
            JsonNode disc = new ObjectMapper().readTree(DaemonTest.get(d, "/api/v1/status").body()).path("discovery");
            assertThat(io.tailwatch.tools.runbook.StatusScreen.discovery(disc, java.time.Instant.now().toString()).replaceAll("\\s+", " "))
                    .contains("hint: llamacpp was found before and no longer answers; still paged as EngineDown")
                    .contains("If gone on purpose: a reload (SIGHUP to process " + ProcessHandle.current().pid() + ")");

            // The operator says it is gone: a reload, with the config unchanged, forgets it and resolves its alert.
            r.reload();
            await().atMost(Duration.ofSeconds(20)).until(() -> d.engines().watch("llamacpp") == null);
            await().atMost(Duration.ofSeconds(20)).until(() -> transitions.stream().anyMatch(t ->
                    t.alert().name().equals("EngineDown") && t.to() == io.tailwatch.core.rules.AlertState.RESOLVED));
            assertThat(d.hub().snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "llamacpp")).isNull();
        } finally {
            sim.close();
        }
    }
}
