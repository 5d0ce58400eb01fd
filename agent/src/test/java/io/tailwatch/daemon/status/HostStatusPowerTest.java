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
}
