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

    /**
     * Channel sets as real machines publish them (names and units from public captures): an M1 Ultra on
     * macOS 27.0 (all-smi issue 415: CPU only per die, the other blocks with a die suffix, a bare GPU0_0 beside
     * GPU Energy), an M5 Max on macOS 27.0 (all-smi's 364-channel capture: per-cluster MCPU/PCPU/PACC channels
     * beside CPU Energy, GPU0 beside GPU Energy). The figures are chosen here; watts worked out by hand over 2 s.
     */
    @Test
    void realChannelSetsOfAnUltraAndAnM5MaxOnMacos27() {
        EnergyModel.Reading ultra = new EnergyModel().apply(new IOReportDelta(2.0, List.of(
                ch("DIE_0_CPU Energy", "mJ", 6000), ch("DIE_1_CPU Energy", "mJ", 4000), // (6 + 4) J / 2 s = 5 W
                ch("GPU0_0", "mJ", 2900), ch("GPU SRAM0_0", "mJ", 200), ch("ANE0_0", "mJ", 100),
                ch("ISP0_0", "mJ", 50), ch("AVE0_0", "mJ", 40), ch("MSR0_0", "mJ", 30), ch("DCS0_0", "mJ", 300),
                ch("DRAM0_0", "mJ", 700), ch("AMCC0_0", "mJ", 900), ch("ANE0_1", "mJ", 60), ch("DCS0_1", "mJ", 100),
                ch("DRAM0_1", "mJ", 500), ch("PCPU1DTL2b", "mJ", 70), ch("apciec0 Energy", "uJ", 5000),
                ch("PCIe Port 0 Energy", "uJ", 8000), ch("GPU Energy", "nJ", 3_000_000_000L))));
        assertThat(ultra.watts()).containsOnlyKeys("cpu", "gpu", "gpu_sram", "ane", "dram", "dcs");
        assertThat(ultra.watts().get("cpu")).isCloseTo(5.0, within(1e-9));
        // GPU Energy alone (3 J): GPU0_0 beside it is not added (that would read 2.95 W)
        assertThat(ultra.watts().get("gpu")).isCloseTo(1.5, within(1e-9));
        assertThat(ultra.watts().get("gpu_sram")).isCloseTo(0.1, within(1e-9));
        assertThat(ultra.watts().get("ane")).isCloseTo(0.08, within(1e-9)); // both dies: 0.16 J
        assertThat(ultra.watts().get("dram")).isCloseTo(0.6, within(1e-9)); // 1.2 J
        assertThat(ultra.watts().get("dcs")).isCloseTo(0.2, within(1e-9)); // 0.4 J

        EnergyModel.Reading m5 = new EnergyModel().apply(new IOReportDelta(2.0, List.of(
                ch("MCPU0_0", "mJ", 500), ch("PACC_0", "mJ", 900), ch("MCPM0", "mJ", 100), ch("PCPM", "mJ", 100),
                ch("MCPU0_0_SRAM", "mJ", 20), ch("PCPU0_SRAM", "mJ", 30), ch("MCPU0", "mJ", 3000), ch("MCPU1", "mJ", 2000),
                ch("PCPU", "mJ", 5000), ch("CPU Energy", "mJ", 10_000), ch("MCPU0DTL00", "mJ", 10), ch("PCPUDTL010", "mJ", 10),
                ch("GPU0", "mJ", 1000), ch("AFR0", "mJ", 5), ch("ANE0", "mJ", 0), ch("ISP0", "mJ", 5), ch("AVE0", "mJ", 5),
                ch("MSR0", "mJ", 5), ch("AMCC0", "mJ", 800), ch("DCS0", "mJ", 400), ch("DRAM0", "mJ", 1200),
                ch("DISP0", "mJ", 300), ch("DISPEXT0", "mJ", 10), ch("FAB0", "mJ", 200), ch("PCIe Port 0 Energy", "uJ", 100),
                ch("apciec2 Energy", "uJ", 100), ch("GPU Energy", "nJ", 1_100_000_000L))));
        assertThat(m5.watts()).containsOnlyKeys("cpu", "gpu", "ane", "dram", "dcs");
        // CPU Energy alone: the clusters (MCPU0, MCPU1, PCPU) and cores inside it are not added again
        assertThat(m5.watts().get("cpu")).isCloseTo(5.0, within(1e-9));
        assertThat(m5.watts().get("gpu")).isCloseTo(0.55, within(1e-9));
        assertThat(m5.watts().get("ane")).isZero();
        assertThat(m5.watts().get("dram")).isCloseTo(0.6, within(1e-9));
        assertThat(m5.watts().get("dcs")).isCloseTo(0.2, within(1e-9));
    }

    /**
     * Per-core and per-cluster channels of an M2 Ultra (macmon issue 17) and the "DIE0 " names a macOS 27
     * beta publishes (SiliconScope's captures): cores are never a rail; a prefixed rail is the rail.
     */
    @Test
    void dtlTelemetryIsNeverSummedOnlyTheRollUpIs() {
        // An M5 Max on macOS 27: CPU Energy (the roll-up, 8,000 mJ over 2 s = 4 W) beside 300 DTL channels,
        // some named like the roll-up; adding them would read 4 W + 300 x 50 mJ / 2 s = 11.5 W.
        List<IOReportChannel> chans = new java.util.ArrayList<>();
        chans.add(ch("DIE_0_CPU Energy", "mJ", 8000));
        for (int i = 0; i < 300; i++) {
            chans.add(ch(i % 2 == 0 ? "DIE0 PCPUDTL" + i : "DIE_0_DTL" + i + " CPU Energy", "mJ", 50));
        }
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(2.0, chans));
        assertThat(r.watts()).containsOnlyKeys("cpu");
        assertThat(r.watts().get("cpu")).isCloseTo(4.0, within(1e-9));
    }

    @Test
    void ultraCoreChannelsAreNoRailAndDie0PrefixedNamesAre() {
        for (String core : List.of("DIE_0_EACC_CPU0", "DIE_0_PACC0_CPU0", "DIE_1_PACC1_CPU3", "DIE_0_EACC_CPM",
                "DIE_0_PACC0_CPM", "DIE_0_EACC_CPU0_SRAM", "DIE0 GPU0", "DIE0 ECPU0")) {
            assertThat(EnergyModel.rail(core)).as(core).isNull();
        }
        EnergyModel.Reading r = new EnergyModel().apply(new IOReportDelta(2.0, List.of(
                ch("DIE0 CPU Energy", "mJ", 1000), ch("DIE1 CPU Energy", "mJ", 1000), ch("DIE0 GPU0", "mJ", 100),
                ch("DIE1 DRAM1", "mJ", 100), ch("GPU Energy", "nJ", 400_000_000L))));
        assertThat(r.watts()).containsOnlyKeys("cpu", "dram", "gpu");
        assertThat(r.watts().get("cpu")).isCloseTo(1.0, within(1e-9));
        assertThat(r.watts().get("dram")).isCloseTo(0.05, within(1e-9));
        assertThat(r.watts().get("gpu")).isCloseTo(0.2, within(1e-9));
    }
}
