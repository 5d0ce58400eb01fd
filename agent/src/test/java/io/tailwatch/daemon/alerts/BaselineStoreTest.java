package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BaselineStoreTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void putPersistsAcrossReopenAndIsExported() throws Exception {
        Path f = dir.resolve("sub/baselines.json");
        BaselineStore s = BaselineStore.open(f);
        s.put("mlx", "gemma", "summary", 3.67);
        assertThat(Files.readString(f)).contains("\"p95_seconds\" : 3.67", "\"source\" : \"ladder\"");
        try (var files = Files.list(f.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).as("no temp file left behind")
                    .containsExactly("baselines.json");
        }
        BaselineStore again = BaselineStore.open(f);
        assertThat(again.get("mlx", "gemma", "summary").p95Seconds()).isEqualTo(3.67);
        assertThat(again.points()).containsExactly(Point.of(AlertMetrics.BASELINE_E2E_P95, 3.67,
                AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "gemma", AttrKeys.SCENARIO, "summary"));
    }

    @Test
    void learnsFromTheFirstFullWindowOnly() {
        BaselineStore s = BaselineStore.open(dir.resolve("b.json"));
        s.learnFromWindows(window(19, 2.0), 20, T0);
        assertThat(s.all()).isEmpty();
        s.learnFromWindows(window(20, 2.0), 20, T0);
        assertThat(s.get("mlx", "m", "interactive").p95Seconds()).isEqualTo(2.0);
        assertThat(s.get("mlx", "m", "interactive").source()).isEqualTo(BaselineStore.SOURCE_IDLE);
        s.learnFromWindows(window(40, 9.0), 20, T0.plusSeconds(60));
        assertThat(s.get("mlx", "m", "interactive").p95Seconds()).as("a loaded window never replaces it").isEqualTo(2.0);
        s.put("mlx", "m", "interactive", 1.5);
        assertThat(s.get("mlx", "m", "interactive").source()).isEqualTo(BaselineStore.SOURCE_LADDER);
    }

    @Test
    void unreadableFileStartsEmptyAndBadValuesAreRefused() throws Exception {
        Path f = dir.resolve("b.json");
        Files.writeString(f, "{not json");
        BaselineStore s = BaselineStore.open(f);
        assertThat(s.all()).isEmpty();
        assertThatThrownBy(() -> s.put("e", "m", "s", 0)).hasMessageContaining("positive");
        assertThatThrownBy(() -> s.put("e", "m", "s", Double.NaN)).hasMessageContaining("positive");
        s.put("e", "m", "s", 1);
        assertThat(BaselineStore.open(f).all()).hasSize(1);
    }

    @Test
    void aFileRewrittenByAnotherProcessIsPickedUp() throws Exception {
        Path f = dir.resolve("b.json");
        BaselineStore agent = BaselineStore.open(f);
        agent.put("mlx", "m", "interactive", 2.0, BaselineStore.SOURCE_IDLE, T0);
        BaselineStore ladder = BaselineStore.open(f);
        ladder.put("mlx", "m", "interactive", 3.5);
        ladder.put("ollama", "m", "interactive", 1.25);
        // Make the change visible even on file systems with coarse modification times.
        Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.from(T0.plusSeconds(3600)));
        agent.refreshIfChanged();
        assertThat(agent.get("mlx", "m", "interactive").p95Seconds()).isEqualTo(3.5);
        assertThat(agent.points()).hasSize(2);
    }

    private static MetricSnapshot window(double samples, double p95) {
        return new MetricSnapshot(T0, List.of(
                Point.of(ProbeMetrics.WINDOW_SAMPLES, samples, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "m", AttrKeys.SCENARIO, "interactive"),
                Point.of(ProbeMetrics.WINDOW_E2E, p95, AttrKeys.ENGINE, "mlx", AttrKeys.MODEL, "m", AttrKeys.SCENARIO, "interactive", AttrKeys.PERCENTILE, "p95")));
    }
}
