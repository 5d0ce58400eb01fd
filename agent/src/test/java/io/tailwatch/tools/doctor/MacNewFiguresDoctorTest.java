package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.MacToolText;
import io.tailwatch.metrics.AttrValues.PowerExactness;
import io.tailwatch.metrics.AttrValues.RailSource;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * doctor's comparison of the figures from CLPC, the graphics ledgers and DRAM with the OS tools, on captured
 * shapes of their output (powermetrics' power lines; footprint -f bytes with its category rows).
 */
class MacNewFiguresDoctorTest {
    static final long MIB = 1L << 20;

    static final String POWERMETRICS_M5_MAX_27 = """
            *** Sampled system activity (Sat Dec  5 10:02:11 2026 +0100) (1003.02ms elapsed) ***

            **** Processor usage ****

            CPU Power: 7420 mW
            GPU Power: 1980 mW
            ANE Power: 0 mW
            DRAM Power: 410 mW
            Combined Power (CPU + GPU + ANE): 9400 mW

            **** GPU usage ****

            GPU HW active frequency: 1398 MHz
            """;

    /** footprint -f bytes of an Ollama runner: 40 GiB of IOAccelerator graphics plus 64 MiB owned unmapped. */
    static final String FOOTPRINT_RUNNER = """
            ======================================================================
            ollama [4243]: 64-bit    Footprint: 44023414784 B (16384 bytes per page)
            ======================================================================

                    Dirty        Clean  Reclaimable    Regions    Category
                      ---          ---          ---        ---    ---
              42949672960 B        0 B          0 B        312    IOAccelerator (graphics)
                 67108864 B        0 B          0 B          4    owned unmapped (graphics)
                805306368 B        0 B          0 B        120    MALLOC_LARGE
                201326592 B  4194304 B          0 B         60    __DATA
                      ---          ---          ---        ---    ---
              44023414784 B  4194304 B          0 B        496    TOTAL
            """;

    static HostSnapshot snap(Point... points) {
        return new HostSnapshot(Instant.EPOCH, List.of(points), Map.of());
    }

    static Check check(List<Check> checks, String signal) {
        return checks.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow();
    }

    @Test
    void clpcRailsAndDramAreComparedWithPowermetricsUnderTheirSourceAndADisagreementFailsDoctor() {
        // CLPC CPU 7.2 W vs 7.42 W (inside max(50 %, 1 W)); DRAM 0.4 W vs 0.41 W; ANE from CLPC 3 W vs 0 mW:
        // 3 W apart, over the 1 W floor: a disagreement, and doctor exits 1.
        HostSnapshot s = snap(HostMetrics.power("cpu", 7.2, RailSource.CLPC, PowerExactness.EXACT),
                HostMetrics.power("dram", 0.4, RailSource.CLPC, PowerExactness.EXACT),
                HostMetrics.power("ane", 3.0, RailSource.CLPC, PowerExactness.EXACT),
                HostMetrics.power("gpu", 2.0, RailSource.ENERGY_MODEL, PowerExactness.EXACT),
                Point.of(HostMetrics.GPU_FREQUENCY, 1_400e6));
        List<Check> checks = MacDoctor.powermetrics(s, POWERMETRICS_M5_MAX_27, null);
        assertThat(check(checks, "hw.power{cpu, clpc exact}").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(check(checks, "hw.power{dram, clpc exact}").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(check(checks, "hw.power{gpu, energy_model exact}").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(check(checks, "hw.power{ane, clpc exact}").verdict()).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(new DoctorReport("macOS", checks, Map.of()).failed()).isTrue();
        assertThat(new DoctorReport("macOS", checks.stream().filter(c -> !c.signal().startsWith("hw.power{ane")).toList(),
                Map.of()).failed()).isFalse();
    }

    @Test
    void graphicsMemoryIsComparedWithFootprintsGraphicsRows() throws Exception {
        // (graphics) rows: 42,949,672,960 + 67,108,864 = 43,016,781,824 B (40 GiB + 64 MiB).
        assertThat(MacToolText.footprintGraphicsBytes(FOOTPRINT_RUNNER)).isEqualTo(43_016_781_824L);
        assertThat(MacToolText.footprintBytes(FOOTPRINT_RUNNER, 4243)).isEqualTo(44_023_414_784L);
        // A process with no graphics rows: 0 B, a real zero.
        assertThat(MacToolText.footprintGraphicsBytes("ollama [4242]: 64-bit    Footprint: 1000 B\n  1000 B  0 B  0 B  1  MALLOC_SMALL\n"))
                .isZero();
        // tailwatch 41,000 MiB vs 41,024 MiB: inside 10 % -> agree. 30 GiB: 10 GiB short -> disagree.
        Check agree = EngineProcessChecks.graphics("tailwatch.process.gpu.memory.usage{ollama}", 41_000.0 * MIB,
                "footprint", List.of(FOOTPRINT_RUNNER));
        assertThat(agree.verdict()).isEqualTo(Check.Verdict.AGREE);
        Check disagree = EngineProcessChecks.graphics("tailwatch.process.gpu.memory.usage{ollama}", 30.0 * 1024 * MIB,
                "footprint", List.of(FOOTPRINT_RUNNER));
        assertThat(disagree.verdict()).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(new DoctorReport("macOS", List.of(disagree), Map.of()).failed()).isTrue();
        // tailwatch could not read the engine (absent) while footprint shows 40 GiB: a disagreement too.
        assertThat(EngineProcessChecks.graphics("g", null, "footprint", List.of(FOOTPRINT_RUNNER)).verdict())
                .isNotEqualTo(Check.Verdict.AGREE);
    }

    @Test
    void aneResidencyAndTheDieAggregatesAreRangeCheckedAndAnAverageAboveTheMaximumFails() {
        List<Check> ok = NativeInvariants.macOnly(snap(HostMetrics.aneResidency(0.25),
                HostMetrics.temperature("smc_TCMb", "cpu average", 48.5), HostMetrics.temperature("smc_TCMz", "cpu maximum", 61.0)));
        assertThat(ok).hasSize(4).allMatch(c -> c.verdict() == Check.Verdict.CHECKED);
        // an average above the maximum cannot be: INVALID, and doctor exits 1
        List<Check> swapped = NativeInvariants.macOnly(snap(HostMetrics.temperature("smc_TCMb", "cpu average", 61.0),
                HostMetrics.temperature("smc_TCMz", "cpu maximum", 48.5)));
        assertThat(check(swapped, "TCMb <= TCMz").verdict()).isEqualTo(Check.Verdict.INVALID);
        assertThat(new DoctorReport("macOS", swapped, Map.of()).failed()).isTrue();
        // a residency above 1 is impossible; absent figures are shown absent, not failed
        assertThat(check(NativeInvariants.macOnly(snap(HostMetrics.aneResidency(1.5))), "tailwatch.ane.residency").verdict())
                .isEqualTo(Check.Verdict.INVALID);
        List<Check> none = NativeInvariants.macOnly(snap());
        assertThat(none).hasSize(3).allMatch(c -> c.verdict() == Check.Verdict.UNAVAILABLE && c.nativeValue().equals("absent"));
    }
}
