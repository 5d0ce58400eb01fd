package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.testing.SimClock;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GpuMemoryLimitNear on the engine simulator: its Ollama wire reports a model of 5,994,495,152 bytes
 * (size, which holds the KV cache of its 4,096-token context: 4,096 x 128 KiB = 512 MiB) and the shape
 * of 128 KiB per token. The host gives the GPU limit by hand, as Metal would on a Mac.
 */
class GpuMemoryLimitNearTest {
    static final double GIB = 1L << 30;
    static final double SIZE = 5_994_495_152.0;

    @TempDir
    Path dir;

    static HostSnapshot host(double gpuLimit, double available) {
        return new HostSnapshot(Instant.now(), List.of(HostMetrics.gpuMemoryLimit(gpuLimit),
                Point.of(HostMetrics.MEMORY_AVAILABLE, available)), Map.of());
    }

    /** Health checks every 15 s for 4 minutes with the shipped rules; the rules that fired. */
    Set<String> run(double gpuLimit, MetricHub hub, EngineSimulator sim) throws Exception {
        Config shipped = Config.defaults(Map.of());
        SimClock clock = new SimClock(Instant.parse("2026-01-01T00:00:00Z"));
        RuleEngine rules = new RuleEngine(shipped.rules(), List.of(), hub, BaselineStore.open(dir.resolve("b" + gpuLimit + ".json")),
                shipped.alerts().baselineMinSamples(), shipped.alerts().resolvedRetention());
        Set<String> fired = new TreeSet<>();
        rules.addListener(t -> {
            if (t.to() == AlertState.FIRING) {
                fired.add(t.alert().name());
            }
        });
        HostSnapshot snap = host(gpuLimit, 16 * GIB);
        EngineWatch w = new EngineWatch(EngineWatchTest.engine("ollama", sim.port(), null), hub, () -> snap, clock, 100);
        for (int i = 0; i < 16; i++) {
            w.checkHealth();
            rules.evaluate(clock.advance(Duration.ofSeconds(15)));
        }
        return fired;
    }

    /** The share and headroom the model ends with under {@code gpuLimit}, and whether the rule fired. */
    void check(double gpuLimit, double headroomTokens, boolean fires) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"))) {
            MetricHub hub = new MetricHub();
            Set<String> fired = run(gpuLimit, hub, sim);
            MetricSnapshot s = hub.snapshot();
            String model = SimulatorOptions.defaults("ollama").model();
            // the size holds the context's KV cache: nothing is added to it
            assertThat(s.value(EngineMetrics.GPU_MEMORY_SHARE, AttrKeys.ENGINE, "sim", AttrKeys.MODEL, model))
                    .isCloseTo(SIZE / gpuLimit, org.assertj.core.data.Offset.offset(1e-12));
            assertThat(s.value(EngineMetrics.KV_HEADROOM, AttrKeys.ENGINE, "sim", AttrKeys.MODEL, model)).isEqualTo(headroomTokens);
            assertThat(fired.contains("GpuMemoryLimitNear")).isEqualTo(fires);
        }
    }

    @Test
    void a_model_at_93_percent_of_a_6_gib_limit_fires_and_its_headroom_is_bound_by_the_gpu() throws Exception {
        // 5,994,495,152 / 6,442,450,944 = 0.93047; GPU left 447,955,792 bytes / 131,072 = 3,417.6 tokens,
        // far below the 16 GiB available
        check(6 * GIB, 3417.0, true);
    }

    @Test
    void the_same_model_under_a_48_gib_limit_stays_silent_and_memory_binds() throws Exception {
        // 0.1163 of the limit; 16 GiB available / 128 KiB = 131,072 tokens < (48 GiB - 5.58 GiB) / 128 KiB
        check(48 * GIB, 131_072.0, false);
    }

    @Test
    void a_host_without_a_limit_exports_no_share() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"))) {
            MetricHub hub = new MetricHub();
            HostSnapshot linux = new HostSnapshot(Instant.now(), List.of(Point.of(HostMetrics.MEMORY_AVAILABLE, 16 * GIB)), Map.of());
            EngineWatch w = new EngineWatch(EngineWatchTest.engine("ollama", sim.port(), null), hub, () -> linux,
                    java.time.Clock.systemUTC(), 100);
            w.checkHealth();
            assertThat(hub.snapshot().of(EngineMetrics.GPU_MEMORY_SHARE)).isEmpty();
            assertThat(hub.snapshot().of(EngineMetrics.KV_HEADROOM)).isNotEmpty();
            @SuppressWarnings("unchecked")
            var models = (List<Map<String, Object>>) EngineStatus.of(List.of(w)).get(0).get("models");
            assertThat(models.get(0)).containsEntry("gpu_memory_share", null).containsEntry("kv_headroom_bound", "memory")
                    .containsEntry("footprint_bytes", SIZE);
        }
    }
}
