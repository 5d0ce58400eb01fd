package io.tailwatch.core.host.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** A Linux host has no GPU working-set limit: its samplers export none of the GPU memory series (absent, not 0). */
@EnabledOnOs(OS.LINUX)
class LinuxHasNoGpuLimitTest {
    @Test
    void the_gpu_memory_series_are_absent_while_memory_is_read() throws Exception {
        try (HostSampling h = new HostSampling(HostSources.forThisHost(Config.defaults(Map.of())), Duration.ofSeconds(5),
                Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            h.sampleOnce();
            HostSnapshot s = h.sampleOnce(); // the second: a rate-like series would be there by now
            assertThat(s.memoryTotal()).isPositive();
            assertThat(s.gpuMemoryLimit()).isNull();
            assertThat(s.points()).noneMatch(p -> p.metric() == HostMetrics.GPU_MEMORY_LIMIT
                    || p.metric() == HostMetrics.GPU_MEMORY_USAGE || p.metric() == HostMetrics.GPU_WIRED_LIMIT
                    || p.metric() == HostMetrics.PROCESS_GPU_UTILIZATION || p.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION);
        }
    }
}
