package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.HostPower;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PowerExactness;
import io.tailwatch.metrics.AttrValues.PowerSource;
import io.tailwatch.metrics.AttrValues.RailSource;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * CPU, DRAM and ANE power from the AppleCLPC accumulators where the Energy Model is frozen, on deltas laid
 * out as IOReport gives them for the "CLPC" / "Energy Counters" group (simple channels CPU Energy, GPU
 * Energy, ANE, DRAM, in nJ). Expected watts are worked out by hand from the figures chosen here.
 */
class ClpcPowerTest {
    static IOReportChannel em(String name, String unit, long delta) {
        return IOReportChannel.simple(EnergyModel.GROUP, name, unit, delta);
    }

    static IOReportChannel clpc(String name, long nanojoules) {
        return IOReportChannel.simple(ClpcEnergy.GROUP, name, "nJ", nanojoules);
    }

    /** The two samplers as the daemon wires them, fed with the given deltas (after one baseline each). */
    static final class Pair {
        final MacSamplersTest.ScriptedIOReport emIo = new MacSamplersTest.ScriptedIOReport();
        final MacSamplersTest.ScriptedIOReport clpcIo = new MacSamplersTest.ScriptedIOReport();
        final RailChoice choice = new RailChoice();
        final MacPowerSampler emSampler = new MacPowerSampler(Lazy.of("em", () -> emIo), choice);
        final MacClpcPowerSampler clpcSampler;

        Pair(String brand) {
            FakeMacSystem sys = new FakeMacSystem();
            sys.strings.put("machdep.cpu.brand_string", brand);
            clpcSampler = new MacClpcPowerSampler(Lazy.of("clpc", () -> clpcIo), Lazy.of("sys", () -> sys), choice);
        }

        /** Baselines, then one cycle per delta pair: the points of both samplers, Energy Model first. */
        List<List<Point>> run(List<IOReportDelta> ems, List<IOReportDelta> clpcs) throws Exception {
            emIo.deltas.addAll(ems);
            clpcIo.deltas.addAll(clpcs);
            assertThat(emSampler.sample()).isEmpty();
            assertThat(clpcSampler.sample()).isEmpty();
            List<List<Point>> out = new ArrayList<>();
            for (int i = 0; i < ems.size(); i++) {
                List<Point> cycle = new ArrayList<>(emSampler.sample());
                cycle.addAll(clpcSampler.sample());
                out.add(cycle);
            }
            return out;
        }
    }

    static List<Point> of(List<Point> points, MetricDef def, String rail) {
        return points.stream().filter(p -> p.metric() == def && rail.equals(p.attributes().get(AttrKeys.HW_NAME))).toList();
    }

    @Test
    void aFrozenEnergyModelCpuAndDramComeFromClpcLabelledExactOnAnM5Max() throws Exception {
        // Every 1 s. The Energy Model's CPU Energy and DRAM0 stand still (macOS 27), GPU Energy moves 2 J a
        // second. CLPC: CPU Energy 7.5e9 nJ = 7.5 J a second = 7.5 W, DRAM 0.4e9 nJ = 0.4 W, ANE 0.
        List<IOReportDelta> ems = new ArrayList<>();
        List<IOReportDelta> clpcs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ems.add(new IOReportDelta(1.0, List.of(em("CPU Energy", "mJ", 0), em("DRAM0", "mJ", 0),
                    em("GPU Energy", "nJ", 2_000_000_000L))));
            clpcs.add(new IOReportDelta(1.0, List.of(clpc("CPU Energy", 7_500_000_000L), clpc("DRAM", 400_000_000L),
                    clpc("ANE", 0), clpc("GPU Energy", 2_100_000_000L))));
        }
        List<List<Point>> cycles = new Pair("Apple M5 Max").run(ems, clpcs);
        List<Point> last = cycles.get(3);
        new MetricHub().publish("host/power", last); // the catalog accepts the labels

        List<Point> cpu = of(last, HostMetrics.POWER, "cpu");
        assertThat(cpu).hasSize(1);
        assertThat(cpu.get(0).value()).isCloseTo(7.5, within(1e-9));
        assertThat(cpu.get(0).attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.CLPC.value())
                .containsEntry(AttrKeys.POWER_EXACTNESS, PowerExactness.EXACT.value());
        assertThat(of(last, HostMetrics.POWER, "dram").get(0).value()).isCloseTo(0.4, within(1e-9));
        // Energy since the agent started: four seconds of 7.5 J.
        assertThat(of(last, HostMetrics.ENERGY, "cpu").get(0).value()).isCloseTo(30.0, within(1e-9));
        // The GPU's Energy Model rail still updates: it stays the source (2 W), CLPC's GPU is not read.
        List<Point> gpu = of(last, HostMetrics.POWER, "gpu");
        assertThat(gpu).hasSize(1);
        assertThat(gpu.get(0).value()).isCloseTo(2.0, within(1e-9));
        assertThat(gpu.get(0).attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.ENERGY_MODEL.value())
                .containsEntry(AttrKeys.POWER_EXACTNESS, PowerExactness.EXACT.value());
        // The Energy Model rail itself is still reported frozen.
        assertThat(of(last, HostMetrics.POWER_RAIL_STATE, "cpu").get(0).attributes())
                .containsEntry(AttrKeys.RAIL_STATUS, RailStatus.FROZEN.value());

        // The host's power is the rails again, CLPC standing in: 7.5 + 2 + 0.4 + ANE 0 = 9.9 W.
        HostPower hp = HostPower.of(new HostSnapshot(Instant.EPOCH, last, Map.of()));
        assertThat(hp.source()).isEqualTo(PowerSource.RAILS);
        assertThat(hp.watts()).isCloseTo(9.9, within(1e-9));
    }

    @Test
    void onOtherChipsTheClpcSplitIsMarkedEstimated() {
        assertThat(ClpcEnergy.exactness("Apple M5 Pro")).isEqualTo(PowerExactness.EXACT);
        assertThat(ClpcEnergy.exactness("Apple M5 Max")).isEqualTo(PowerExactness.EXACT);
        assertThat(ClpcEnergy.exactness("Apple M5")).isEqualTo(PowerExactness.ESTIMATED);
        assertThat(ClpcEnergy.exactness("Apple M4 Max")).isEqualTo(PowerExactness.ESTIMATED);
        assertThat(ClpcEnergy.exactness("Apple M1 Ultra")).isEqualTo(PowerExactness.ESTIMATED);
        assertThat(ClpcEnergy.exactness(null)).isEqualTo(PowerExactness.ESTIMATED);
    }

    @Test
    void whileTheEnergyModelRailMovesClpcStaysSilentForIt() throws Exception {
        List<IOReportDelta> ems = new ArrayList<>();
        List<IOReportDelta> clpcs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ems.add(new IOReportDelta(1.0, List.of(em("CPU Energy", "mJ", 3000), em("DRAM0", "mJ", 500))));
            clpcs.add(new IOReportDelta(1.0, List.of(clpc("CPU Energy", 2_900_000_000L), clpc("DRAM", 450_000_000L))));
        }
        List<List<Point>> cycles = new Pair("Apple M4 Pro").run(ems, clpcs);
        for (List<Point> c : cycles) {
            List<Point> cpu = of(c, HostMetrics.POWER, "cpu");
            assertThat(cpu).hasSize(1);
            assertThat(cpu.get(0).value()).isCloseTo(3.0, within(1e-9));
            assertThat(cpu.get(0).attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.ENERGY_MODEL.value());
            assertThat(of(c, HostMetrics.ENERGY, "dram")).allMatch(p ->
                    RailSource.ENERGY_MODEL.value().equals(p.attributes().get(AttrKeys.RAIL_SOURCE)));
        }
    }

    @Test
    void aFrozenRailWithoutClpcIsAbsentNeverZero() throws Exception {
        MacSamplersTest.ScriptedIOReport emIo = new MacSamplersTest.ScriptedIOReport();
        RailChoice choice = new RailChoice();
        MacPowerSampler emSampler = new MacPowerSampler(Lazy.of("em", () -> emIo), choice);
        MacClpcPowerSampler clpcSampler = new MacClpcPowerSampler(Lazy.of("clpc", () -> {
            throw new IOException("IOReport group CLPC", new IOReportGroupMissing("CLPC"));
        }), Lazy.of("sys", FakeMacSystem::new), choice);
        for (int i = 0; i < 4; i++) {
            emIo.deltas.add(new IOReportDelta(1.0, List.of(em("CPU Energy", "mJ", 0), em("GPU Energy", "mJ", 1000))));
        }
        emSampler.sample();
        List<Point> last = List.of();
        for (int i = 0; i < 4; i++) {
            last = new ArrayList<>(emSampler.sample());
            last.addAll(clpcSampler.sample());
        }
        assertThat(of(last, HostMetrics.POWER, "cpu")).isEmpty();
        assertThat(of(last, HostMetrics.ENERGY, "cpu")).isEmpty();
        assertThat(of(last, HostMetrics.POWER_RAIL_STATE, "cpu").get(0).attributes())
                .containsEntry(AttrKeys.RAIL_STATUS, RailStatus.FROZEN.value());
        assertThat(HostPower.of(new HostSnapshot(Instant.EPOCH, last, Map.of()))).isNull();
    }

    @Test
    void aStillEnergyModelAneIsFrozenOnlyOnEvidenceFromClpc() throws Exception {
        // The Energy Model's ANE0 reads 0 every second; CLPC's ANE moves 0.8e9 nJ = 0.8 W. For the first
        // 3 s the ANE may be idle (Energy Model 0 W, measured); from then it is frozen and CLPC's 0.8 W is it.
        List<IOReportDelta> ems = new ArrayList<>();
        List<IOReportDelta> clpcs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ems.add(new IOReportDelta(1.0, List.of(em("CPU Energy", "mJ", 1000), em("ANE0", "mJ", 0))));
            clpcs.add(new IOReportDelta(1.0, List.of(clpc("CPU Energy", 1_000_000_000L), clpc("ANE", 800_000_000L))));
        }
        List<List<Point>> cycles = new Pair("Apple M4 Max").run(ems, clpcs);
        List<Point> early = cycles.get(0);
        // The first second: the Energy Model's 0 W is the ANE's (an idle ANE is 0 W).
        assertThat(of(early, HostMetrics.POWER, "ane")).singleElement().satisfies(p -> {
            assertThat(p.value()).isZero();
            assertThat(p.attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.ENERGY_MODEL.value());
        });
        List<Point> last = cycles.get(4);
        assertThat(of(last, HostMetrics.POWER, "ane")).singleElement().satisfies(p -> {
            assertThat(p.value()).isCloseTo(0.8, within(1e-9));
            assertThat(p.attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.CLPC.value())
                    .containsEntry(AttrKeys.POWER_EXACTNESS, PowerExactness.ESTIMATED.value());
        });
        assertThat(of(last, HostMetrics.POWER_RAIL_STATE, "ane").get(0).attributes())
                .containsEntry(AttrKeys.RAIL_STATUS, RailStatus.FROZEN.value());
        // CPU moves in the Energy Model: it stays there.
        assertThat(of(last, HostMetrics.POWER, "cpu")).singleElement()
                .satisfies(p -> assertThat(p.attributes()).containsEntry(AttrKeys.RAIL_SOURCE, RailSource.ENERGY_MODEL.value()));
    }

    @Test
    void clpcCountersPublishedInBatchesAreRatedOverTheirPublicationInterval() {
        // CLPC CPU published about every 2.1 s, read every second: 0, 4.2 J, 0, 0, 4.2 J (the batch boundary
        // fell so that the second covers 3 s). After a first batch over 2 s (2.1 W), 4.2 J over 3 s = 1.4 W;
        // per sample it would have read 4.2 W spikes between zeros.
        ClpcEnergy e = new ClpcEnergy("Apple M5 Max");
        long[] nj = {0, 4_200_000_000L, 0, 0, 4_200_000_000L};
        List<Double> watts = new ArrayList<>();
        for (long v : nj) {
            watts.add(e.apply(new IOReportDelta(1.0, List.of(clpc("CPU Energy", v)))).watts().get("cpu"));
        }
        assertThat(watts.get(0)).isNull();
        assertThat(watts.get(1)).isCloseTo(2.1, within(1e-9));
        assertThat(watts.get(2)).isCloseTo(2.1, within(1e-9));
        assertThat(watts.get(3)).isCloseTo(2.1, within(1e-9));
        assertThat(watts.get(4)).isCloseTo(1.4, within(1e-9));
        assertThat(watts).allMatch(w -> w == null || w <= 2.1 + 1e-9);
    }

    @Test
    void theSelfCheckRejectsAClpcReadingThatDoesNotFitTheLayout() throws Exception {
        ClpcEnergy.checkLayout(new IOReportDelta(0.01, List.of(clpc("CPU Energy", 5_000_000), clpc("ANE", 0),
                clpc("GPU Energy", 1_000))));
        assertThatThrownBy(() -> ClpcEnergy.checkLayout(new IOReportDelta(0.01, List.of(
                IOReportChannel.simple(ClpcEnergy.GROUP, "CPU Energy", "W", 5)))))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("unit 'W'");
        assertThatThrownBy(() -> ClpcEnergy.checkLayout(new IOReportDelta(0.01, List.of(
                clpc("CPU Energy", IOReportChannel.NO_VALUE)))))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("CPU Energy");
        assertThatThrownBy(() -> ClpcEnergy.checkLayout(new IOReportDelta(0.01, List.of(clpc("DRAM", -40)))))
                .isInstanceOf(NativeProbe.WrongLayout.class);
        assertThatThrownBy(() -> ClpcEnergy.checkLayout(new IOReportDelta(0.01, List.of(clpc("GPU Energy", 10)))))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("no CPU, DRAM or ANE");
    }

    @Test
    void theInt64MinFillOfAnEmptyChannelIsNoReading() {
        // IOReport writes INT64_MIN into a channel with nothing to report: not a reset, not a drop, not 0 W.
        EnergyModel m = new EnergyModel();
        EnergyModel.Reading r = m.apply(new IOReportDelta(1.0, List.of(em("CPU Energy", "mJ", 2000),
                em("ANE0", "mJ", IOReportChannel.NO_VALUE), em("DRAM0", "mJ", IOReportChannel.NO_VALUE))));
        assertThat(r.watts()).containsOnlyKeys("cpu");
        assertThat(r.droppedTotal()).isZero();
        ClpcEnergy c = new ClpcEnergy("Apple M5 Max");
        assertThat(c.apply(new IOReportDelta(1.0, List.of(clpc("ANE", IOReportChannel.NO_VALUE), clpc("CPU Energy", 1_000_000_000L))))
                .watts()).containsOnlyKeys("cpu");
    }
}
