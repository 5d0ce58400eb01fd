package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Frozen Energy Model rails on recorded sequences of raw counters. The deltas are taken here as IOReport
 * takes them for simple channels (this sample's raw value minus the previous one's), so a counter that
 * macOS stopped shows up as identical raw values, as in the macOS 27 reports (the channel names are those
 * of an M5 Max on macOS 27.0 and of an M1 Ultra).
 */
class FrozenRailTest {
    /** Raw cumulative counters at one sample, by channel name, and the seconds since the previous sample. */
    record Raw(double seconds, Map<String, Long> counters) {
    }

    static final Map<String, String> UNITS = Map.of("CPU Energy", "mJ", "DIE0 CPU Energy", "mJ", "GPU Energy", "nJ",
            "DRAM0", "mJ", "ANE0", "mJ", "DCS0", "mJ", "DIE_0_CPU Energy", "mJ", "DIE_1_CPU Energy", "mJ", "DRAM0_0", "mJ");

    static Raw raw(double seconds, Object... nameValue) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put((String) nameValue[i], ((Number) nameValue[i + 1]).longValue());
        }
        return new Raw(seconds, m);
    }

    /** The sampler's points after each sample of the sequence (the first sample is the baseline). */
    static List<List<Point>> replay(Raw... samples) throws Exception {
        MacSamplersTest.ScriptedIOReport io = new MacSamplersTest.ScriptedIOReport();
        for (int i = 1; i < samples.length; i++) {
            List<IOReportChannel> ch = new ArrayList<>();
            for (Map.Entry<String, Long> e : samples[i].counters().entrySet()) {
                long prev = samples[i - 1].counters().get(e.getKey());
                ch.add(IOReportChannel.simple(EnergyModel.GROUP, e.getKey(), UNITS.get(e.getKey()), e.getValue() - prev));
            }
            io.deltas.add(new IOReportDelta(samples[i].seconds(), ch));
        }
        MacPowerSampler s = new MacPowerSampler(Lazy.of("fake", () -> io));
        assertThat(s.sample()).isEmpty();
        List<List<Point>> out = new ArrayList<>();
        for (int i = 1; i < samples.length; i++) {
            out.add(s.sample());
        }
        return out;
    }

    static Double value(List<Point> points, MetricDef def, String rail) {
        return points.stream().filter(p -> p.metric() == def && rail.equals(p.attributes().get(AttrKeys.HW_NAME)))
                .map(Point::value).findFirst().orElse(null);
    }

    static String state(List<Point> points, String rail) {
        return points.stream().filter(p -> p.metric() == HostMetrics.POWER_RAIL_STATE && rail.equals(p.attributes().get(AttrKeys.HW_NAME)))
                .map(p -> p.attributes().get(AttrKeys.RAIL_STATUS)).findFirst().orElse(null);
    }

    @Test
    void identicalRawCpuAndDramCountersAreFrozenNotZeroWattsAndComeBackWhenTheyMove() throws Exception {
        // Every 5 s (the shipped interval). CPU Energy and DRAM0 repeat their raw values (macOS 27), GPU
        // Energy moves: +15 J = 3 W, +5 J = 1 W, then 0 (an idle GPU is 0 W). At the last sample CPU moves
        // by 25,000 mJ = 25 J over 5 s = 5 W and DRAM0 by 1,500 mJ = 0.3 W.
        List<List<Point>> p = replay(
                raw(5.0, "CPU Energy", 1_000_000, "GPU Energy", 5_000_000_000_000L, "DRAM0", 200_000),
                raw(5.0, "CPU Energy", 1_000_000, "GPU Energy", 5_015_000_000_000L, "DRAM0", 200_000),
                raw(5.0, "CPU Energy", 1_000_000, "GPU Energy", 5_020_000_000_000L, "DRAM0", 200_000),
                raw(5.0, "CPU Energy", 1_025_000, "GPU Energy", 5_020_000_000_000L, "DRAM0", 201_500));

        List<Point> first = p.get(0);
        assertThat(value(first, HostMetrics.POWER, "cpu")).isNull();
        assertThat(value(first, HostMetrics.ENERGY, "cpu")).isNull();
        assertThat(value(first, HostMetrics.POWER, "dram")).isNull();
        assertThat(state(first, "cpu")).isEqualTo(RailStatus.FROZEN.value());
        assertThat(state(first, "dram")).isEqualTo(RailStatus.FROZEN.value());
        assertThat(value(first, HostMetrics.POWER, "gpu")).isCloseTo(3.0, within(1e-9));
        assertThat(state(first, "gpu")).isEqualTo(RailStatus.MEASURED.value());

        List<Point> second = p.get(1);
        assertThat(value(second, HostMetrics.POWER, "cpu")).isNull();
        assertThat(state(second, "cpu")).isEqualTo(RailStatus.FROZEN.value());
        assertThat(value(second, HostMetrics.POWER, "gpu")).isCloseTo(1.0, within(1e-9));

        // The first movement after a frozen stretch is a catch-up of unknown length: its energy counts, but it
        // gives no rate (25 J over 5 s would read 5 W; over the 15 s since the freeze, 1.67 W; neither is known).
        List<Point> back = p.get(2);
        assertThat(state(back, "cpu")).isEqualTo(RailStatus.MEASURED.value());
        assertThat(value(back, HostMetrics.POWER, "cpu")).isNull();
        assertThat(value(back, HostMetrics.ENERGY, "cpu")).isCloseTo(25.0, within(1e-9));
        assertThat(value(back, HostMetrics.POWER, "dram")).isNull();
        assertThat(value(back, HostMetrics.POWER, "gpu")).isZero();
        assertThat(value(back, HostMetrics.ENERGY, "gpu")).isCloseTo(20.0, within(1e-9));
    }

    @Test
    void aDiePrefixWithASpaceIsTheSameRail() throws Exception {
        assertThat(EnergyModel.rail("DIE0 CPU Energy")).isEqualTo("cpu");
        assertThat(EnergyModel.rail("DIE_0_CPU Energy")).isEqualTo("cpu");
        assertThat(EnergyModel.rail("DIE1 DRAM0")).isEqualTo("dram");
        // 2 s at 2,000 mJ = 1 W, then frozen over 3 s.
        List<List<Point>> p = replay(
                raw(2.0, "DIE0 CPU Energy", 10_000),
                raw(2.0, "DIE0 CPU Energy", 12_000),
                raw(3.0, "DIE0 CPU Energy", 12_000));
        assertThat(value(p.get(0), HostMetrics.POWER, "cpu")).isCloseTo(1.0, within(1e-9));
        assertThat(state(p.get(1), "cpu")).isEqualTo(RailStatus.FROZEN.value());
        assertThat(value(p.get(1), HostMetrics.POWER, "cpu")).isNull();
    }

    @Test
    void countersPublishedInBatchesAreNotFrozenBetweenBatches() throws Exception {
        // An M1 Ultra sampled every second: its channels are published about every 2 s, so two still
        // seconds (2 s < 3 s) are no batch yet, absent but not frozen; then 4,000 mJ arrives at once: the
        // energy of the 3 s since the previous batch, 4 J / 3 s (not 4 J / 1 s, a spike), and DRAM 0.6 J / 3 s.
        List<List<Point>> p = replay(
                raw(1.0, "DIE_0_CPU Energy", 50_000, "DIE_1_CPU Energy", 40_000, "DRAM0_0", 9_000),
                raw(1.0, "DIE_0_CPU Energy", 50_000, "DIE_1_CPU Energy", 40_000, "DRAM0_0", 9_000),
                raw(1.0, "DIE_0_CPU Energy", 50_000, "DIE_1_CPU Energy", 40_000, "DRAM0_0", 9_000),
                raw(1.0, "DIE_0_CPU Energy", 52_500, "DIE_1_CPU Energy", 41_500, "DRAM0_0", 9_600));
        for (int i = 0; i < 2; i++) {
            assertThat(value(p.get(i), HostMetrics.POWER, "cpu")).isNull();
            assertThat(state(p.get(i), "cpu")).isNotEqualTo(RailStatus.FROZEN.value());
        }
        assertThat(value(p.get(2), HostMetrics.POWER, "cpu")).isCloseTo(4.0 / 3, within(1e-9));
        assertThat(value(p.get(2), HostMetrics.POWER, "dram")).isCloseTo(0.2, within(1e-9));
        assertThat(state(p.get(2), "cpu")).isEqualTo(RailStatus.MEASURED.value());
    }

    @Test
    void betweenBatchesTheRailKeepsTheRateOfItsLastBatchAndNeverSpikes() throws Exception {
        // An M5 Max on macOS 26 publishing CPU Energy every 2 s, sampled every second: raw +0, +6,000 mJ, +0,
        // +6,000, +0, +9,000. After the first batch (baseline phase unknown, 6 J over the 2 s since the
        // baseline = 3 W), each batch covers the 2 s since the previous one: 3 W, 4.5 W; the still seconds in
        // between keep the last batch's rate. Rated per sample it would have read 0, 6, 0, 6, 0, 9 W.
        List<List<Point>> p = replay(
                raw(1.0, "CPU Energy", 100_000),
                raw(1.0, "CPU Energy", 100_000),
                raw(1.0, "CPU Energy", 106_000),
                raw(1.0, "CPU Energy", 106_000),
                raw(1.0, "CPU Energy", 112_000),
                raw(1.0, "CPU Energy", 112_000),
                raw(1.0, "CPU Energy", 121_000));
        assertThat(value(p.get(0), HostMetrics.POWER, "cpu")).isNull();
        double[] want = {3.0, 3.0, 3.0, 3.0, 4.5};
        for (int i = 0; i < want.length; i++) {
            assertThat(value(p.get(i + 1), HostMetrics.POWER, "cpu")).as("sample %d", i + 2).isCloseTo(want[i], within(1e-9));
            assertThat(state(p.get(i + 1), "cpu")).isEqualTo(RailStatus.MEASURED.value());
        }
        assertThat(value(p.get(5), HostMetrics.ENERGY, "cpu")).isCloseTo(21.0, within(1e-9));
    }

    @Test
    void oneStillDieOfAnUltraLeavesTheWholeRailOut() throws Exception {
        // DIE_0 moves 3,000 mJ every 3 s, DIE_1 repeats: the sum would be half the rail, so cpu is frozen.
        List<List<Point>> p = replay(
                raw(3.0, "DIE_0_CPU Energy", 1_000, "DIE_1_CPU Energy", 7_000),
                raw(3.0, "DIE_0_CPU Energy", 4_000, "DIE_1_CPU Energy", 7_000));
        assertThat(value(p.get(0), HostMetrics.POWER, "cpu")).isNull();
        assertThat(state(p.get(0), "cpu")).isEqualTo(RailStatus.FROZEN.value());
    }
}
