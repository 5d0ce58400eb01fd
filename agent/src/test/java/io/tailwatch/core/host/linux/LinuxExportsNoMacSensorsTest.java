package io.tailwatch.core.host.linux;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Whole-machine power, fans and the battery come from the SMC and the IORegistry: the Linux samplers,
 * run twice on this machine's own procfs and sysfs, export none of them, and none of them is native.
 */
class LinuxExportsNoMacSensorsTest {
    private static final Set<MetricDef> MAC_ONLY = Set.of(HostMetrics.HOST_POWER, HostMetrics.HOST_ENERGY,
            HostMetrics.FAN_SPEED, HostMetrics.FAN_SPEED_LIMIT, HostMetrics.BATTERY_CHARGE, HostMetrics.BATTERY_POWER,
            HostMetrics.POWER_SUPPLY_LIMIT);

    @Test
    void theLinuxSamplersExportNoSmcOrBatterySeries() throws Exception {
        List<Sampler> samplers = LinuxSources.samplers(Config.defaults(Map.of()));
        assertThat(samplers).noneMatch(s -> s instanceof NativeSampler n && n.probeId() != null);
        List<Point> points = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (Sampler s : samplers) {
                try {
                    points.addAll(s.sample());
                } catch (Exception e) {
                    // a signal this machine lacks; its siblings still count
                }
            }
        }
        assertThat(points).isNotEmpty();
        assertThat(points).noneMatch(p -> MAC_ONLY.contains(p.metric()));
        assertThat(points).filteredOn(p -> p.metric() == HostMetrics.THERMAL_TEMPERATURE)
                .noneMatch(p -> p.attributes().getOrDefault("hw.id", "").startsWith("smc_"));
    }
}
