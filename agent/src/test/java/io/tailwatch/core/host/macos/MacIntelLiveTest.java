package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Intel Macs: memory, swap, pressure, thermal pressure, CPU_Speed_Limit and CPU utilization are read;
 * IOReport has no Energy Model or GPU Stats group, so power and GPU are absent and their samplers
 * still succeed, every cycle. Run: {@code mvn -pl agent -am test -Dtest=MacIntelLiveTest}.
 */
@EnabledOnOs(OS.MAC)
@EnabledIfSystemProperty(named = "os.arch", matches = "x86_64|amd64")
class MacIntelLiveTest {
    @Test
    void memorySwapPressureAndThermalWorkWithoutIOReport() throws Exception {
        try (HostSampling h = new HostSampling(HostSources.forThisHost(Config.defaults(Map.of())), Duration.ofSeconds(5),
                Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            // Three cycles: a missing IOReport group must stay "absent, not failing" after the first.
            for (int cycle = 1; cycle <= 3; cycle++) {
                HostSnapshot s = h.sampleOnce();
                for (String sampler : List.of("memory", "swap", "pressure", "thermal", "cpu_speed_limit", "cpu", "power",
                        "gpu")) {
                    assertThat(s.results().get(sampler).success())
                            .as("cycle " + cycle + ", " + sampler + ": " + s.results().get(sampler).error()).isTrue();
                }
                assertThat(s.memoryUsed()).isLessThanOrEqualTo(s.memoryTotal());
                // Intel Macs record CPU_Speed_Limit (pmset -g therm prints it).
                assertThat(s.cpuSpeedLimit()).isNotNull().isBetween(0.0, 1.0);
                assertThat(s.power("cpu")).as("no Energy Model on Intel").isNull();
                if (cycle > 1) {
                    double sum = s.points().stream().filter(p -> p.metric() == HostMetrics.CPU_UTILIZATION)
                            .mapToDouble(p -> p.value()).sum();
                    assertThat(sum).as("cpu modes add up to 1").isCloseTo(1.0, within(1e-9));
                    assertThat(s.points()).noneMatch(p -> p.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION);
                }
                Thread.sleep(1000); // let CPU ticks accrue between cycles; not an assertion
            }
        }
    }
}
