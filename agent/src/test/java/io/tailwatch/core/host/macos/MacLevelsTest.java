package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MacLevelsTest {

    @Test
    void kernelPressureLevelsMapToZeroOneTwo() throws IOException {
        assertThat(MacLevels.memoryPressure(1)).isZero();
        assertThat(MacLevels.memoryPressure(2)).isEqualTo(1);
        assertThat(MacLevels.memoryPressure(4)).isEqualTo(2);
        assertThat(MacLevels.memoryPressureName(2)).isEqualTo("critical");
    }

    @Test
    void unknownKernelPressureValuesAreRefusedNotGuessed() {
        for (long v : new long[] {0, 3, 5, 8, -1, (1L << 32) | 1}) {
            assertThatThrownBy(() -> MacLevels.memoryPressure(v)).isInstanceOf(IOException.class)
                    .hasMessageContaining("kern.memorystatus_vm_pressure_level").hasMessageContaining(Long.toString(v));
        }
    }

    @Test
    void freePercentageBecomesARatio() throws IOException {
        assertThat(MacLevels.freeRatio(37)).isEqualTo(0.37);
        assertThat(MacLevels.freeRatio(100)).isEqualTo(1.0);
        assertThatThrownBy(() -> MacLevels.freeRatio(101)).hasMessageContaining("kern.memorystatus_level");
    }

    @Test
    void thermalNotifyStatesAreExportedAsIs() throws IOException {
        for (int s = 0; s <= 4; s++) {
            assertThat(MacLevels.thermalPressure(s)).isEqualTo(s);
        }
        assertThat(MacLevels.thermalPressureName(3)).isEqualTo("trapping");
        assertThatThrownBy(() -> MacLevels.thermalPressure(5)).hasMessageContaining("thermalpressurelevel");
        // notify_get_state hands back a uint64; a garbage high value must not wrap into the enum.
        assertThatThrownBy(() -> MacLevels.thermalPressure(1L << 32)).isInstanceOf(IOException.class);
    }

    @Test
    void missingCpuSpeedLimitIsAbsentNotAnError() throws IOException {
        assertThat(CpuPowerStatus.speedLimitRatio(null)).isEmpty();
        assertThat(CpuPowerStatus.speedLimitRatio(Map.of(CpuPowerStatus.SCHEDULER_LIMIT, 100L))).isEmpty();
        assertThat(CpuPowerStatus.speedLimitRatio(Map.of(CpuPowerStatus.SPEED_LIMIT, 62L))).hasValue(0.62);
        assertThatThrownBy(() -> CpuPowerStatus.speedLimitRatio(Map.of(CpuPowerStatus.SPEED_LIMIT, 250L)))
                .hasMessageContaining("CPU_Speed_Limit");
    }
}
