package io.tailwatch.core.host.macos;

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
        // Table entry 0 is the off state; P1 runs at entry 1, P2 at entry 2, P3 at entry 3.
        long[] table = {0, 400_000_000L, 800_000_000L, 1_200_000_000L};
        GpuResidency.Reading r = GpuResidency.decode(List.of(gpuph(500, 100, 100, 0, 300)), table);
        // Active = P1 100 + P2 0 + P3 300 = 400 of 1000 -> 0.4.
        assertThat(r.utilization()).isCloseTo(0.4, within(1e-12));
        // (100 x 400 MHz + 300 x 1200 MHz) / 400 = 1000 MHz, worked by hand.
        assertThat(r.frequencyHz()).isCloseTo(1_000_000_000.0, within(1.0));
    }

    /** The M2 Ultra's published voltage-states9 (Hz), entry 0 zero; and the same shape with entry 0 non-zero. */
    static final long[] M2_ULTRA = {0, 444_000_000L, 612_000_000L, 808_000_000L, 968_000_000L, 1_110_000_000L,
            1_236_000_000L, 1_338_000_000L, 1_398_000_000L};

    private static IOReportChannel gpuphWithStates(int activeStates, int busyIndex) {
        List<IOReportChannel.State> states = new java.util.ArrayList<>();
        states.add(new IOReportChannel.State("OFF", 0));
        for (int i = 1; i <= activeStates; i++) {
            states.add(new IOReportChannel.State("P" + i, i == busyIndex ? 1000 : 0));
        }
        return new IOReportChannel(GpuResidency.GROUP, GpuResidency.SUBGROUP, GpuResidency.CHANNEL, "", 0, states);
    }

    @Test
    void tableWhoseFirstEntryIsZero() {
        // OFF + P1..P8 against the 9-entry table: all time in P8 is the top step, 1398 MHz;
        // all time in P1 is the lowest real step, 444 MHz.
        assertThat(GpuResidency.decode(List.of(gpuphWithStates(8, 8)), M2_ULTRA).frequencyHz()).isEqualTo(1.398e9);
        assertThat(GpuResidency.decode(List.of(gpuphWithStates(8, 1)), M2_ULTRA).frequencyHz()).isEqualTo(4.44e8);
    }

    @Test
    void tableWhoseFirstEntryIsNotZero() {
        // Entry 0 holds a non-zero (off-state) value: P1 still runs at entry 1, 618 MHz, and P3 at
        // entry 3, 1100 MHz. Dropping zeros would have paired P1 with 338 MHz (one step off).
        long[] table = {338_000_000L, 618_000_000L, 796_000_000L, 1_100_000_000L};
        assertThat(GpuResidency.decode(List.of(gpuphWithStates(3, 1)), table).frequencyHz()).isEqualTo(6.18e8);
        assertThat(GpuResidency.decode(List.of(gpuphWithStates(3, 3)), table).frequencyHz()).isEqualTo(1.1e9);
        // A table with no step for the last active state does not describe this GPU.
        assertThat(GpuResidency.decode(List.of(gpuphWithStates(4, 1)), table).frequencyHz()).isNull();
    }

    @Test
    void withoutATableOnlyUtilizationIsKnown() {
        GpuResidency.Reading r = GpuResidency.decode(List.of(gpuph(0, 50, 50, 0, 0)), null);
        assertThat(r.utilization()).isCloseTo(0.5, within(1e-12));
        assertThat(r.frequencyHz()).isNull();
        // A table shorter than the active states does not describe this GPU.
        assertThat(GpuResidency.decode(List.of(gpuph(0, 50, 50, 0, 10)), new long[] {0, 1}).frequencyHz()).isNull();
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
        // Entries keep their positions, the zero off-state entry included.
        assertThat(DvfsTable.decodeHz(hz.array())).containsExactly(0L, 389_000_000L, 648_000_000L, 1_296_000_000L);
        ByteBuffer khz = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        khz.putInt(338_000).putInt(600).putInt(1_578_000).putInt(900);
        assertThat(DvfsTable.decodeHz(khz.array())).containsExactly(338_000_000L, 1_578_000_000L);
        assertThat(DvfsTable.decodeHz(new byte[3])).isEmpty();
    }
}
