package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
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
}
