package io.tailwatch.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuResidencyTest {
    private static IOReportChannel gpuph(long... residencies) {
        String[] names = {"OFF", "IDLE", "P1", "P2", "P3"};
        List<IOReportChannel.State> states = new java.util.ArrayList<>();
        for (int i = 0; i < residencies.length; i++) {
            states.add(new IOReportChannel.State(names[i], residencies[i]));
        }
        return new IOReportChannel(GpuResidency.GROUP, GpuResidency.SUBGROUP, GpuResidency.CHANNEL, "", 0, states);
    }

    @Test
    void utilizationIsActiveResidencyAndFrequencyIsWeighted() {
        long[] table = {400_000_000L, 800_000_000L, 1_200_000_000L};
        GpuResidency.Reading r = GpuResidency.decode(List.of(gpuph(500, 100, 100, 0, 300)), table);
        assertThat(r.utilization()).isCloseTo(0.4, within(1e-12));
        assertThat(r.frequencyHz()).isCloseTo((100 * 400e6 + 300 * 1200e6) / 400, within(1.0));
    }

    @Test
    void withoutATableOnlyUtilizationIsKnown() {
        GpuResidency.Reading r = GpuResidency.decode(List.of(gpuph(0, 50, 50, 0, 0)), null);
        assertThat(r.utilization()).isCloseTo(0.5, within(1e-12));
        assertThat(r.frequencyHz()).isNull();
        // A table shorter than the active states does not describe this GPU.
        assertThat(GpuResidency.decode(List.of(gpuph(0, 50, 50, 0, 10)), new long[] {1}).frequencyHz()).isNull();
    }

    @Test
    void idleGpuHasZeroUtilizationAndNoFrequency() {
        GpuResidency.Reading r = GpuResidency.decode(List.of(gpuph(900, 100, 0, 0, 0)), new long[] {1, 2, 3});
        assertThat(r.utilization()).isZero();
        assertThat(r.frequencyHz()).isNull();
    }

    @Test
    void resetsEmptyIntervalsAndMissingChannelsGiveNothing() {
        assertThat(GpuResidency.decode(List.of(gpuph(10, -5, 3)), null)).isNull();
        assertThat(GpuResidency.decode(List.of(gpuph(0, 0, 0)), null)).isNull();
        assertThat(GpuResidency.decode(List.of(), null)).isNull();
    }

    @Test
    void dvfsTableInHzAndKhz() {
        ByteBuffer hz = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        hz.putInt(0).putInt(0).putInt(389_000_000).putInt(600).putInt(648_000_000).putInt(650).putInt(1_296_000_000).putInt(900);
        assertThat(DvfsTable.decodeHz(hz.array())).containsExactly(389_000_000L, 648_000_000L, 1_296_000_000L);
        ByteBuffer khz = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        khz.putInt(338_000).putInt(600).putInt(1_578_000).putInt(900);
        assertThat(DvfsTable.decodeHz(khz.array())).containsExactly(338_000_000L, 1_578_000_000L);
        assertThat(DvfsTable.decodeHz(new byte[3])).isEmpty();
    }
}
