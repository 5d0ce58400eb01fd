package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scheduler: health checks and jittered probes keep running, and follow the engine going away. */
class EngineMonitorTest {
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"openai", "ollama"})
    void schedulesHealthAndProbesUntilTheEngineStops(String api) throws Exception {
        MetricHub hub = new MetricHub();
        SimulatorOptions o = SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(10), 500);
        EngineSimulator sim = EngineSimulator.start(api, "127.0.0.1", 0, o);
        var sc = new EngineConfig.Scenario("interactive", Duration.ofSeconds(1), 16, 4, 0,
                Duration.ofMillis(800), Duration.ofMillis(900), true);
        EngineConfig e = new EngineConfig("mlx", api, URI.create("http://127.0.0.1:" + sim.port()), null, null,
                Duration.ofSeconds(1), Duration.ofMillis(900), true, List.of(sc), List.of(), null);
        try (EngineMonitor m = new EngineMonitor(List.of(e), hub, () -> HostSnapshot.EMPTY, Clock.systemUTC()).start()) {
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                assertThat(hub.snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "mlx")).isNotNull().isEqualTo(1.0);
                assertThat(hub.snapshot().value(ProbeMetrics.WINDOW_SAMPLES, AttrKeys.ENGINE, "mlx")).isNotNull().isGreaterThanOrEqualTo(3.0);
            });
            assertThat(hub.snapshot().value(ProbeMetrics.WINDOW_ERROR_RATIO, AttrKeys.ENGINE, "mlx")).isEqualTo(0.0);
            assertThat(sim.maxConcurrent()).isEqualTo(1);
            sim.close();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(hub.snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "mlx")).isEqualTo(0.0));
        } finally {
            sim.close();
        }
    }
}
