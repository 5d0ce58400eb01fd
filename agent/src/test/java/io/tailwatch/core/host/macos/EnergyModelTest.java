package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class EnergyModelTest {
    private static IOReportChannel ch(String name, String unit, long value) {
        return IOReportChannel.simple(EnergyModel.GROUP, name, unit, value);
    }

    @Test
    void railsAreMatchedByPrefixAndSuffix() {
        assertThat(EnergyModel.rail("CPU Energy")).isEqualTo("cpu");
        assertThat(EnergyModel.rail("DIE_0_CPU Energy")).isEqualTo("cpu");
        assertThat(EnergyModel.rail("DIE_1_CPU Energy")).isEqualTo("cpu");
        assertThat(EnergyModel.rail("GPU Energy")).isEqualTo("gpu");
        assertThat(EnergyModel.rail("GPU")).isEqualTo("gpu");
        assertThat(EnergyModel.rail("GPU SRAM0")).isEqualTo("gpu_sram");
        assertThat(EnergyModel.rail("ANE")).isEqualTo("ane");
        assertThat(EnergyModel.rail("DIE_1_ANE0")).isEqualTo("ane");
        assertThat(EnergyModel.rail("DRAM0")).isEqualTo("dram");
        assertThat(EnergyModel.rail("DCS0")).isEqualTo("dcs");
        // Per-cluster and per-core channels are parts of a rail, not rails.
        assertThat(EnergyModel.rail("EACC_CPU")).isNull();
        assertThat(EnergyModel.rail("PACC0_CPU3")).isNull();
        assertThat(EnergyModel.rail("ISP")).isNull();
    }

    @Test
    void unitLabelsScaleToJoulesAndUnknownUnitsAreNotGuessed() {
        assertThat(EnergyModel.joulesPerUnit("mJ")).isEqualTo(1e-3);
        assertThat(EnergyModel.joulesPerUnit(" uJ ")).isEqualTo(1e-6);
        assertThat(EnergyModel.joulesPerUnit("\u00b5J")).isEqualTo(1e-6);
        assertThat(EnergyModel.joulesPerUnit("nJ")).isEqualTo(1e-9);
        assertThat(EnergyModel.joulesPerUnit("W")).isNaN();
        assertThat(EnergyModel.joulesPerUnit("")).isNaN();
    }

    @Test
    void wattsAreEnergyOverTheMeasuredIntervalAndUltraDiesAddUp() {
        EnergyModel m = new EnergyModel();
        // 1.009 s measured (not the requested 1 s).
        EnergyModel.Reading r = m.apply(new IOReportDelta(1.009, List.of(
                ch("DIE_0_CPU Energy", "mJ", 4036),
                ch("DIE_1_CPU Energy", "mJ", 2018),
                ch("GPU Energy", "nJ", 10_090_000_000L),
                ch("ANE", "mJ", 0),
                ch("DRAM0", "uJ", 1_009_000),
                ch("EACC_CPU", "mJ", 999_999))));
        assertThat(r.watts().get("cpu")).isCloseTo(6.0, within(1e-9));
        assertThat(r.watts().get("gpu")).isCloseTo(10.0, within(1e-9));
        assertThat(r.watts().get("dram")).isCloseTo(1.0, within(1e-9));
        assertThat(r.watts().get("ane")).isZero();
        assertThat(r.watts()).doesNotContainKey(null);
        assertThat(r.joules().get("cpu")).isCloseTo(6.054, within(1e-9));
        assertThat(r.droppedTotal()).isZero();

        EnergyModel.Reading r2 = m.apply(new IOReportDelta(2.0, List.of(ch("DIE_0_CPU Energy", "mJ", 2000))));
        assertThat(r2.watts()).containsOnlyKeys("cpu");
        assertThat(r2.watts().get("cpu")).isCloseTo(1.0, within(1e-9));
        // Energy is a counter since start: it keeps every rail and adds up.
        assertThat(r2.joules().get("cpu")).isCloseTo(8.054, within(1e-9));
        assertThat(r2.joules()).containsKeys("gpu", "dram", "ane");
    }

    @Test
    void unknownUnitsAreSkippedAndCounted() {
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(1.0, List.of(
                ch("CPU Energy", "kWh", 5), ch("GPU Energy", "mJ", 3000))));
        assertThat(r.watts()).containsOnlyKeys("gpu");
        assertThat(r.unknownUnitsTotal()).isEqualTo(1);
    }

    @Test
    void counterResetsAndImpossibleReadingsAreDroppedAndCounted() {
        EnergyModel m = new EnergyModel();
        EnergyModel.Reading r = m.apply(new IOReportDelta(1.0, List.of(
                ch("CPU Energy", "mJ", -123_456), // counter went backwards
                ch("GPU Energy", "mJ", 50_000_000), // 50 kW
                ch("DRAM", "mJ", 900))));
        assertThat(r.watts()).containsOnlyKeys("dram");
        assertThat(r.joules()).containsOnlyKeys("dram");
        assertThat(r.droppedTotal()).isEqualTo(2);
        // One die reset does not get summed with the healthy die into a wrong total.
        EnergyModel.Reading r2 = m.apply(new IOReportDelta(1.0, List.of(
                ch("DIE_0_CPU Energy", "mJ", -5), ch("DIE_1_CPU Energy", "mJ", 4000))));
        assertThat(r2.watts()).doesNotContainKey("cpu");
        assertThat(r2.droppedTotal()).isEqualTo(3);
    }

    @Test
    void zeroLengthIntervalGivesNoPowerButKeepsEnergy() {
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(0.0, List.of(ch("CPU Energy", "mJ", 10))));
        assertThat(r.watts()).isEmpty();
        assertThat(r.joules().get("cpu")).isCloseTo(0.01, within(1e-12));
        assertThat(r.droppedTotal()).isZero();
    }

    @Test
    void gpuIsCountedOnceWhenBothNamesAppear() {
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(1.0, List.of(
                ch("GPU Energy", "mJ", 2000), ch("GPU", "nJ", 2_000_000_000L))));
        assertThat(r.watts().get("gpu")).isCloseTo(2.0, within(1e-9));
        EnergyModel.Reading only = new EnergyModel().apply(new IOReportDelta(1.0, List.of(ch("GPU", "nJ", 3_000_000_000L))));
        assertThat(only.watts().get("gpu")).isCloseTo(3.0, within(1e-9));
    }

    @Test
    void channelsOfOtherGroupsAreIgnored() {
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(1.0, List.of(
                IOReportChannel.simple("PMP", "CPU Energy", "mJ", 5000))));
        assertThat(r.joules()).isEmpty();
    }
}
