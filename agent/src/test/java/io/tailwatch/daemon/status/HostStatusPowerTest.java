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

    @Test
    @SuppressWarnings("unchecked")
    void systemPowerBatteryFansAndSensorsWithWhereEachPowerFigureCameFrom() {
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(
                HostMetrics.railState("cpu", RailStatus.FROZEN),
                HostMetrics.power("gpu", 3.0),
                HostMetrics.hostPower(21.5),
                HostMetrics.battery(HostMetrics.BATTERY_POWER, -15.5),
                HostMetrics.battery(HostMetrics.BATTERY_CHARGE, 0.8),
                HostMetrics.fanSpeed(0, 1200),
                HostMetrics.fanSpeedLimit(0, 4800),
                HostMetrics.temperature("smc_Tp01", "cpu Tp01", 45.5)), Map.of());
        Map<String, Object> m = HostStatus.of(snap, null);
        assertThat(m).containsEntry("system_power_watts", 21.5);
        assertThat((Map<String, Object>) m.get("battery")).containsEntry("power_watts", -15.5).containsEntry("charge_ratio", 0.8)
                .doesNotContainKey("adapter_watts");
        assertThat((List<Map<String, Object>>) m.get("fans")).singleElement()
                .satisfies(f -> assertThat(f).containsEntry("id", "fan0").containsEntry("rpm", 1200.0).containsEntry("max_rpm", 4800.0));
        assertThat((List<Map<String, Object>>) ((Map<String, Object>) m.get("thermal")).get("sensors")).singleElement()
                .satisfies(t -> assertThat(t).containsEntry("id", "smc_Tp01").containsEntry("celsius", 45.5));
        Map<String, String> sources = (Map<String, String>) m.get("power_sources");
        assertThat(sources.get("system")).contains("PSTR");
        assertThat(sources.get("battery")).contains("AppleSmartBattery");
        assertThat(sources.get("rails")).endsWith(": gpu");
        assertThat(sources).containsEntry("rail cpu", "unavailable (macOS froze this counter)");
    }

    @Test
    void aHostWithoutSmcOrBatteryHasNoneOfTheirParts() {
        Map<String, Object> m = HostStatus.of(new HostSnapshot(Instant.EPOCH, List.of(HostMetrics.power("package", 9.0)), Map.of()), null);
        assertThat(m).doesNotContainKeys("system_power_watts", "battery", "fans");
        assertThat(m.get("power_sources").toString()).doesNotContain("PSTR").doesNotContain("AppleSmartBattery");
    }
}
