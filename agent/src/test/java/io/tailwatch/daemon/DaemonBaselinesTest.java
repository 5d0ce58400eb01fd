package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.Point;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The baseline file is shared by every run on the host; a daemon exports only its own engines' baselines. */
class DaemonBaselinesTest {
    @TempDir
    Path dir;

    @Test
    void baselines_of_engines_the_daemon_does_not_watch_are_not_exported() throws Exception {
        Path file = dir.resolve("baselines.json");
        BaselineStore store = BaselineStore.open(file);
        store.put("sim", "m", "interactive", 0.5);
        store.put("127.0.0.1:8080", "m", "interactive", 1.15); // an old ad-hoc ladder run's
        store.put("other-agents-engine", "m", "interactive", 2.0);
        Config cfg = Config.parse("""
                server:
                  listen: 127.0.0.1:0
                host:
                  interval: 1s
                alerts:
                  baseline:
                    file: %s
                engines:
                  - name: sim
                    api: openai
                    url: http://127.0.0.1:9
                """.formatted(file), "test", Map.of());
        Sampler none = new Sampler() {
            public String name() {
                return "none";
            }

            public List<Point> sample() {
                return List.of();
            }
        };
        try (Daemon d = new Daemon(cfg, Map.of(), List.of(none)).start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> d.hub().snapshot().value(AlertMetrics.BASELINE_E2E_P95,
                    AttrKeys.ENGINE, "sim") != null);
            assertThat(d.hub().snapshot().value(AlertMetrics.BASELINE_E2E_P95, AttrKeys.ENGINE, "sim")).isEqualTo(0.5);
            assertThat(d.hub().snapshot().of(AlertMetrics.BASELINE_E2E_P95)).hasSize(1);
            assertThat(DaemonTest.get(d, "/metrics").body()).doesNotContain("127.0.0.1:8080").doesNotContain("other-agents-engine");
        }
    }
}
