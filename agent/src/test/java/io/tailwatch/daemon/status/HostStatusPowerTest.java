package io.tailwatch.daemon.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostStatusPowerTest {
    @Test
    void aFrozenRailIsNamedUnavailableAndHasNoWatts() {
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(
                HostMetrics.power("gpu", 3.0),
                HostMetrics.railState("gpu", RailStatus.MEASURED),
                HostMetrics.railState("cpu", RailStatus.FROZEN)), Map.of());
        Map<String, Object> m = HostStatus.of(snap, null);
        @SuppressWarnings("unchecked")
        Map<String, Object> power = (Map<String, Object>) m.get("power");
        @SuppressWarnings("unchecked")
        Map<String, Object> unavailable = (Map<String, Object>) m.get("power_unavailable");
        assertThat(power).containsEntry("gpu_watts", 3.0).doesNotContainKey("cpu_watts");
        assertThat(unavailable).isEqualTo(Map.of("cpu", "unavailable (macOS froze this counter)"));
    }

    @Test
    void noFrozenRailNoUnavailablePart() {
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(HostMetrics.power("cpu", 2.0),
                HostMetrics.railState("cpu", RailStatus.MEASURED)), Map.of());
        assertThat(HostStatus.of(snap, null)).doesNotContainKey("power_unavailable");
    }

    @Test
    void anEngineEntryCarriesItsGpuShareWhenKnown() {
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(
                io.tailwatch.metrics.Point.of(HostMetrics.PROCESS_RSS, 2e9, io.tailwatch.metrics.AttrKeys.ENGINE, "llama"),
                HostMetrics.processGpuUtilization("llama", "gpu0", 0.75),
                io.tailwatch.metrics.Point.of(HostMetrics.PROCESS_RSS, 1e9, io.tailwatch.metrics.AttrKeys.ENGINE, "ollama")), Map.of());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> procs = (List<Map<String, Object>>) HostStatus.of(snap, null).get("processes");
        assertThat(procs).containsExactly(Map.of("engine", "llama", "rss_bytes", 2_000_000_000L, "gpu_utilization", 0.75),
                Map.of("engine", "ollama", "rss_bytes", 1_000_000_000L));
    }
}
