package io.tailwatch.host.macos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.config.Config;
import io.tailwatch.host.HostSampling;
import io.tailwatch.host.HostSnapshot;
import io.tailwatch.host.HostSources;
import io.tailwatch.metrics.MetricHub;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Intel Macs: whatever the machine exposes is read; IOReport's absence fails only power and GPU. */
@EnabledOnOs(OS.MAC)
@EnabledIfSystemProperty(named = "os.arch", matches = "x86_64|amd64")
class MacIntelLiveTest {
    @Test
    void memorySwapPressureAndThermalWorkWithoutIOReport() throws Exception {
        try (HostSampling h = new HostSampling(HostSources.forThisHost(Config.defaults(Map.of())), Duration.ofSeconds(5),
                Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            HostSnapshot s = h.sampleOnce();
            for (String sampler : List.of("memory", "swap", "pressure", "thermal", "cpu_speed_limit")) {
                assertThat(s.results().get(sampler).success()).as(sampler + ": " + s.results().get(sampler).error()).isTrue();
            }
            assertThat(s.memoryUsed()).isLessThanOrEqualTo(s.memoryTotal());
            if (s.cpuSpeedLimit() != null) {
                assertThat(s.cpuSpeedLimit()).isBetween(0.0, 1.0);
            }
        }
    }
}
