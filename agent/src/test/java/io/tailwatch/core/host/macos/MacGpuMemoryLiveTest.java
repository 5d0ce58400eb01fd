package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Metal's limit and the IOAccelerator's statistics through the real native calls, on Apple silicon:
 * {@code mvn -pl agent -am test -Dtest=MacGpuMemoryLiveTest}. Skipped everywhere else.
 */
@EnabledOnOs(OS.MAC)
@EnabledIfSystemProperty(named = "os.arch", matches = "aarch64|arm64")
class MacGpuMemoryLiveTest {

    @Test
    void the_limit_lies_within_total_memory_and_the_statistics_are_read() throws Exception {
        long total = MacNativeSystem.open().sysctlLong("hw.memsize");
        MacNativeMetal metal = MacNativeMetal.open();
        long limit = metal.recommendedMaxWorkingSetSize();
        assertThat(limit).isGreaterThan(total / 2).isLessThanOrEqualTo(total);
        assertThat(metal.recommendedMaxWorkingSetSize()).as("read again").isEqualTo(limit);
        List<Map<String, Long>> d = MacNativeAccelerator.open().performanceStatistics();
        assertThat(d).isNotEmpty();
        AcceleratorStatistics s = AcceleratorStatistics.of(d);
        assertThat(s.inUseBytes()).isNotNull().isBetween(0L, total);
        assertThat(s.allocatedBytes()).isNotNull().isBetween(0L, total);
    }
}
