package io.tailwatch.core.host.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.AttrValues.LoadWindow;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxSamplersTest {
    static Path fixture(String name) {
        try {
            return Path.of(LinuxSamplersTest.class.getResource("/fixtures/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static MetricSnapshot snap(List<Point> points) {
        return new MetricSnapshot(Instant.EPOCH, points);
    }

    @Test
    void memoryFollowsFreeArithmetic() throws Exception {
        MetricSnapshot s = snap(new MemorySampler(fixture("linux-swap/proc")).sample());
        long kib = 1024;
        assertThat(s.value(HostMetrics.MEMORY_LIMIT)).isEqualTo(32787456.0 * kib);
        assertThat(s.value(HostMetrics.MEMORY_AVAILABLE)).isEqualTo(6291456.0 * kib);
        assertThat(s.value(HostMetrics.MEMORY_USAGE, MemoryState.FREE)).isEqualTo(1048576.0 * kib);
        assertThat(s.value(HostMetrics.MEMORY_USAGE, MemoryState.CACHED)).isEqualTo((4194304.0 + 524288) * kib);
        // used = MemTotal - MemAvailable (procps-ng 4 free): 32787456 - 6291456 = 26496000 kB
        // = 27,131,904,000 bytes, worked by hand. The pre-4 formula (total - free - buffers - cache)
        // would give 26818688 kB.
        assertThat(s.value(HostMetrics.MEMORY_USAGE, MemoryState.USED)).isEqualTo(27_131_904_000.0);
    }

    @Test
    void usedFallsBackToTheOlderFreeFormulaWithoutMemAvailable(@TempDir Path proc) throws Exception {
        Files.writeString(proc.resolve("meminfo"),
                "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 200 kB\nSReclaimable: 25 kB\n");
        MetricSnapshot s = snap(new MemorySampler(proc).sample());
        // 1000 - 100 - 50 - (200 + 25) = 625 kB = 640,000 bytes; no available series at all.
        assertThat(s.value(HostMetrics.MEMORY_USAGE, MemoryState.USED)).isEqualTo(640_000.0);
        assertThat(s.value(HostMetrics.MEMORY_AVAILABLE)).isNull();
    }

    @Test
    void cpuUtilizationFromProcStatTickDeltas(@TempDir Path proc) throws Exception {
        CpuStatSampler cpu = new CpuStatSampler(proc);
        // Columns: user nice system idle iowait irq softirq steal guest guest_nice.
        write(proc.resolve("stat"), "cpu  1000 100 500 8000 200 50 50 100 300 0\ncpu0 1000 100 500 8000 200 50 50 100 300 0\n");
        assertThat(cpu.sample()).as("the first sample is the baseline").isEmpty();
        write(proc.resolve("stat"), "cpu  1600 100 700 8900 300 100 100 200 500 0\ncpu0 1600 100 700 8900 300 100 100 200 500 0\n");
        MetricSnapshot s = snap(cpu.sample());
        // Deltas: user 600 (the +200 guest ticks are inside it), nice 0, system 200, idle 900,
        // iowait 100, interrupt 50 + 50 = 100, steal 100: 2000 ticks. Worked by hand:
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "user")).isEqualTo(0.3);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "nice")).isEqualTo(0.0);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "system")).isEqualTo(0.1);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "idle")).isEqualTo(0.45);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "iowait")).isEqualTo(0.05);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "interrupt")).isEqualTo(0.05);
        assertThat(s.value(HostMetrics.CPU_UTILIZATION, "cpu.mode", "steal")).isEqualTo(0.05);
        // A counter that went backwards (a hotplugged CPU's ticks left the sum): nothing, not a guess.
        write(proc.resolve("stat"), "cpu  1500 100 700 9000 300 100 100 200 500 0\n");
        assertThat(cpu.sample()).isEmpty();
        write(proc.resolve("stat"), "intr 12 3 4\n");
        assertThatThrownBy(cpu::sample).hasMessageContaining("stat line 1");
    }

    @Test
    void cpuUtilizationOnThisMachineAddsUpToOne() throws Exception {
        CpuStatSampler cpu = new CpuStatSampler(Path.of("/proc"));
        assertThat(cpu.sample()).isEmpty();
        List<Point> p = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(100)).until(cpu::sample, x -> !x.isEmpty());
        double sum = p.stream().mapToDouble(Point::value).sum();
        assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(p).allMatch(x -> x.value() >= 0 && x.value() <= 1);
    }

    @Test
    void swapUsedIsTotalMinusFree() throws Exception {
        MetricSnapshot s = snap(new SwapSampler(fixture("linux-swap/proc")).sample());
        assertThat(s.value(HostMetrics.PAGING_USAGE, PagingState.USED)).isEqualTo(2.0 * (1L << 30));
        assertThat(s.value(HostMetrics.PAGING_USAGE, PagingState.FREE)).isEqualTo(6.0 * (1L << 30));
    }

    @Test
    void pressureLevelAndStallRatios() throws Exception {
        MetricSnapshot s = snap(new PressureSampler(fixture("linux-swap/proc")).sample());
        assertThat(s.value(HostMetrics.PRESSURE_LEVEL)).isEqualTo(1.0);
        assertThat(s.value(HostMetrics.PRESSURE_STALL, AttrKeys.PSI_KIND, "some", AttrKeys.PSI_WINDOW, "avg10")).isEqualTo(0.125);
        assertThat(s.value(HostMetrics.PRESSURE_STALL, AttrKeys.PSI_KIND, "full", AttrKeys.PSI_WINDOW, "avg60")).isEqualTo(0.01);
    }

    @Test
    void cpuAndIoPressureAndEveryStallTotal(@TempDir Path proc) throws Exception {
        // As kernel 6.1 prints them: cpu has a "full" line that is 0 at the system level.
        write(proc.resolve("pressure/cpu"), "some avg10=2.50 avg60=1.25 avg300=0.40 total=987654321\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        write(proc.resolve("pressure/io"), "some avg10=7.00 avg60=3.00 avg300=1.00 total=42000000\n"
                + "full avg10=5.00 avg60=2.00 avg300=0.50 total=21500000\n");
        MetricSnapshot cpu = snap(CpuIoPressureSampler.cpu(proc).sample());
        assertThat(cpu.value(HostMetrics.CPU_PRESSURE_STALL, PsiKind.SOME, AttrKeys.PSI_WINDOW, "avg10")).isEqualTo(0.025);
        assertThat(cpu.value(HostMetrics.CPU_PRESSURE_STALL_TIME, PsiKind.SOME)).isEqualTo(987.654321);
        // The undefined cpu "full" is left out, not exported as 0.
        assertThat(cpu.points()).noneMatch(p -> "full".equals(p.attributes().get(AttrKeys.PSI_KIND)));
        MetricSnapshot io = snap(CpuIoPressureSampler.io(proc).sample());
        assertThat(io.value(HostMetrics.IO_PRESSURE_STALL, PsiKind.FULL, AttrKeys.PSI_WINDOW, "avg300")).isEqualTo(0.005);
        assertThat(io.value(HostMetrics.IO_PRESSURE_STALL_TIME, PsiKind.SOME)).isEqualTo(42.0);
        assertThat(io.value(HostMetrics.IO_PRESSURE_STALL_TIME, PsiKind.FULL)).isEqualTo(21.5);
        // linux-swap's memory file: total=123456789 us and 23456789 us.
        MetricSnapshot mem = snap(new PressureSampler(fixture("linux-swap/proc")).sample());
        assertThat(mem.value(HostMetrics.MEMORY_PRESSURE_STALL_TIME, PsiKind.SOME)).isEqualTo(123.456789);
        assertThat(mem.value(HostMetrics.MEMORY_PRESSURE_STALL_TIME, PsiKind.FULL)).isEqualTo(23.456789);
    }

    @Test
    void withoutPressureFilesOrLoadavgNothingIsExportedAndGarbageNamesTheFile(@TempDir Path proc) throws Exception {
        assertThat(CpuIoPressureSampler.cpu(proc).sample()).isEmpty();
        assertThat(CpuIoPressureSampler.io(proc).sample()).isEmpty();
        assertThat(new LoadAverageSampler(proc).sample()).isEmpty();
        write(proc.resolve("pressure/io"), "some avg10=1.00 avg60=1.00 avg300=1.00 total=-5\n");
        assertThatThrownBy(() -> CpuIoPressureSampler.io(proc).sample()).hasMessageContaining("pressure/io line 1")
                .hasMessageContaining("total");
        write(proc.resolve("loadavg"), "0.52 nan 0.59 2/418 12345\n");
        assertThatThrownBy(() -> new LoadAverageSampler(proc).sample()).hasMessageContaining("loadavg")
                .hasMessageContaining("field 2");
    }

    @Test
    void loadAverageFromProcLoadavg(@TempDir Path proc) throws Exception {
        write(proc.resolve("loadavg"), "3.52 1.58 0.09 2/418 12345\n");
        MetricSnapshot s = snap(new LoadAverageSampler(proc).sample());
        assertThat(s.value(HostMetrics.LOAD_AVERAGE, LoadWindow.AVG1)).isEqualTo(3.52);
        assertThat(s.value(HostMetrics.LOAD_AVERAGE, LoadWindow.AVG5)).isEqualTo(1.58);
        assertThat(s.value(HostMetrics.LOAD_AVERAGE, LoadWindow.AVG15)).isEqualTo(0.09);
    }

    @Test
    void perCpuTimeIsOptInAndInSecondsOfUserHz(@TempDir Path proc) throws Exception {
        // cpu0 has every column; cpu1 is from a kernel without steal (7 columns): no steal series for it.
        write(proc.resolve("stat"), "cpu  3000 20 900 50000 100 10 20 5 0 0\n"
                + "cpu0 2000 20 600 25000 60 5 15 5 0 0\n"
                + "cpu1 1000 0 300 25000 40 5 5\n"
                + "intr 12345 0 0\nctxt 999\n");
        assertThat(new CpuStatSampler(proc).sample()).noneMatch(p -> p.metric() == HostMetrics.CPU_TIME);
        MetricSnapshot s = snap(new CpuStatSampler(proc, true).sample());
        assertThat(s.value(HostMetrics.CPU_TIME, CpuMode.USER, AttrKeys.CPU_LOGICAL_NUMBER, "0")).isEqualTo(20.0);
        assertThat(s.value(HostMetrics.CPU_TIME, CpuMode.IDLE, AttrKeys.CPU_LOGICAL_NUMBER, "1")).isEqualTo(250.0);
        // interrupt = irq + softirq: (5 + 15) / 100
        assertThat(s.value(HostMetrics.CPU_TIME, CpuMode.INTERRUPT, AttrKeys.CPU_LOGICAL_NUMBER, "0")).isEqualTo(0.2);
        assertThat(s.value(HostMetrics.CPU_TIME, CpuMode.STEAL, AttrKeys.CPU_LOGICAL_NUMBER, "0")).isEqualTo(0.05);
        assertThat(s.value(HostMetrics.CPU_TIME, CpuMode.STEAL, AttrKeys.CPU_LOGICAL_NUMBER, "1")).isNull();
        assertThat(s.points()).filteredOn(p -> p.metric() == HostMetrics.CPU_TIME).hasSize(7 + 6);
    }

    @Test
    void perCpuTimeIsBoundedToSixtyFourCpus(@TempDir Path proc) throws Exception {
        StringBuilder stat = new StringBuilder("cpu  1 1 1 1 1 1 1 1 0 0\n");
        for (int i = 0; i < 200; i++) {
            stat.append("cpu").append(i).append(" 1 1 1 1 1 1 1 1 0 0\n");
        }
        write(proc.resolve("stat"), stat.toString());
        assertThat(new CpuStatSampler(proc, true).sample()).hasSize(64 * 7);
    }

    @Test
    void pressureLevelThresholds() {
        assertThat(PressureSampler.level(0, 0)).isZero();
        assertThat(PressureSampler.level(9.99, 1.99)).isZero();
        assertThat(PressureSampler.level(10, 0)).isEqualTo(1);
        assertThat(PressureSampler.level(0, 2)).isEqualTo(1);
        assertThat(PressureSampler.level(50, 10)).isEqualTo(2);
    }

    @Test
    void noPsiMeansNoPressureSignal(@TempDir Path proc) throws Exception {
        assertThat(new PressureSampler(proc).sample()).isEmpty();
    }

    @Test
    void garbledFilesFailWithTheFileAndLine(@TempDir Path proc) throws Exception {
        Files.writeString(proc.resolve("meminfo"), "MemTotal: 100 kB\nMemFree: lots kB\n");
        assertThatThrownBy(() -> new MemorySampler(proc).sample())
                .isInstanceOf(IOException.class).hasMessageContaining("meminfo line 2");
        Files.writeString(proc.resolve("meminfo"), "MemTotal: 100 kB\n");
        assertThatThrownBy(() -> new MemorySampler(proc).sample()).hasMessageContaining("no MemFree line");
        assertThatThrownBy(() -> new SwapSampler(proc).sample()).hasMessageContaining("no SwapTotal/SwapFree");
        Files.createDirectories(proc.resolve("pressure"));
        Files.writeString(proc.resolve("pressure/memory"), "some avg10=abc\n");
        assertThatThrownBy(() -> new PressureSampler(proc).sample()).hasMessageContaining("line 1");
        Files.writeString(proc.resolve("pressure/memory"), "\u0000\u0001garbage\n");
        assertThatThrownBy(() -> new PressureSampler(proc).sample()).isInstanceOf(IOException.class);
    }

    @Test
    void thermalExportsEveryValidZoneAsHwTemperature(@TempDir Path sys) throws Exception {
        Path t = sys.resolve("class/thermal");
        write(t.resolve("thermal_zone0/temp"), "45000\n");
        write(t.resolve("thermal_zone0/type"), "acpitz\n");
        write(t.resolve("thermal_zone1/temp"), "71500\n");
        write(t.resolve("thermal_zone1/type"), "x86_pkg_temp\n");
        write(t.resolve("thermal_zone2/temp"), "-9200000\n");
        write(t.resolve("thermal_zone3/temp"), "not a number\n");
        List<Point> points = new ThermalSampler(sys).sample();
        assertThat(points).containsExactly(HostMetrics.temperature("thermal_zone0", "acpitz", 45.0),
                HostMetrics.temperature("thermal_zone1", "x86_pkg_temp", 71.5));
        assertThat(points.get(1).attributes()).containsEntry(AttrKeys.HW_TYPE, "temperature");
        HostSnapshot host = new HostSnapshot(java.time.Instant.EPOCH, points, java.util.Map.of());
        assertThat(host.temperature()).as("hottest zone").isEqualTo(71.5);
    }

    @Test
    void noThermalZonesMeansAbsent(@TempDir Path sys) throws Exception {
        assertThat(new ThermalSampler(sys).sample()).isEmpty();
        assertThat(new CpuFreqSampler(sys).sample()).isEmpty();
        assertThat(new RaplSampler(sys).sample()).isEmpty();
    }

    @Test
    void idleCpusAtFullCeilingAreNotLimited() throws Exception {
        // 4 CPUs idling at 800 MHz of 3.5 GHz, every ceiling at 3.5 GHz.
        MetricSnapshot s = snap(new CpuFreqSampler(fixture("linux-cpu-idle/sys")).sample());
        assertThat(s.value(HostMetrics.CPU_SPEED_LIMIT)).isEqualTo(1.0);
        assertThat(s.value(HostMetrics.CPU_FREQUENCY)).isEqualTo(800e6);
        assertThat(s.value(HostMetrics.CPU_THROTTLE_EVENTS, "tailwatch.cpu.throttle.scope", "core")).isEqualTo(0.0);
        assertThat(s.value(HostMetrics.CPU_THROTTLE_EVENTS, "tailwatch.cpu.throttle.scope", "package")).isEqualTo(0.0);
    }

    @Test
    void cappedCpuGivesTheLowestCeiling() throws Exception {
        // cpu2 is capped at 1.4 GHz of 3.5 GHz (0.4); the others at 3.5 GHz. Core counters 3+5+0+1,
        // package counters 7 (package 0: cpu0, cpu1) and 2 (package 1: cpu2, cpu3).
        MetricSnapshot s = snap(new CpuFreqSampler(fixture("linux-cpu-capped/sys")).sample());
        assertThat(s.value(HostMetrics.CPU_SPEED_LIMIT)).isCloseTo(0.4, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(s.value(HostMetrics.CPU_FREQUENCY)).isEqualTo((3500e6 + 3500e6 + 1400e6 + 800e6) / 4);
        assertThat(s.value(HostMetrics.CPU_THROTTLE_EVENTS, "tailwatch.cpu.throttle.scope", "core")).isEqualTo(9.0);
        assertThat(s.value(HostMetrics.CPU_THROTTLE_EVENTS, "tailwatch.cpu.throttle.scope", "package")).isEqualTo(9.0);
    }

    @Test
    void impossibleCeilingFailsWithTheFile(@TempDir Path sys) throws Exception {
        Path cpu = sys.resolve("devices/system/cpu");
        write(cpu.resolve("cpu0/cpufreq/scaling_max_freq"), "0");
        write(cpu.resolve("cpu0/cpufreq/cpuinfo_max_freq"), "3600000");
        assertThatThrownBy(() -> new CpuFreqSampler(sys).sample()).isInstanceOf(IOException.class)
                .hasMessageContaining("scaling_max_freq");
    }

    @Test
    void pagingCountersComeFromVmstat() throws Exception {
        MetricSnapshot s = snap(new PagingSampler(fixture("linux-swap/proc")).sample());
        assertThat(s.value(HostMetrics.PAGING_OPERATIONS, PagingDirection.IN)).isEqualTo(123456.0);
        assertThat(s.value(HostMetrics.PAGING_OPERATIONS, PagingDirection.OUT)).isEqualTo(654321.0);
    }

    @Test
    void pagingWithoutVmstatIsAbsentAndGarbledVmstatNamesTheLine(@TempDir Path proc) throws Exception {
        assertThat(new PagingSampler(proc).sample()).isEmpty();
        Files.writeString(proc.resolve("vmstat"), "nr_free_pages 5\npswpin 12\npswpout many\n");
        assertThatThrownBy(() -> new PagingSampler(proc).sample()).isInstanceOf(IOException.class)
                .hasMessageContaining("vmstat line 3");
    }

    @Test
    void raplPowerIsEnergyDeltaOverMeasuredIntervalWithWrap(@TempDir Path sys) throws Exception {
        Path z = sys.resolve("class/powercap/intel-rapl:0");
        Path dram = sys.resolve("class/powercap/intel-rapl:0:0");
        write(z.resolve("name"), "package-0\n");
        write(z.resolve("max_energy_range_uj"), "1000000000");
        write(z.resolve("energy_uj"), "999000000");
        write(dram.resolve("name"), "dram\n");
        write(dram.resolve("max_energy_range_uj"), "1000000000");
        write(dram.resolve("energy_uj"), "100");
        AtomicLong clock = new AtomicLong(0);
        RaplSampler r = new RaplSampler(sys, clock::get);
        MetricSnapshot first = snap(r.sample());
        assertThat(first.value(HostMetrics.POWER, AttrKeys.HW_NAME, "package")).isNull();
        assertThat(first.value(HostMetrics.ENERGY, AttrKeys.HW_NAME, "package")).isEqualTo(0.0);
        // 2 s later the package counter wrapped: 999e6 -> 1e9 -> 19e6 = 20e6 uJ = 20 J -> 10 W.
        clock.set(2_000_000_000L);
        write(z.resolve("energy_uj"), "19000000");
        write(dram.resolve("energy_uj"), "4000100");
        MetricSnapshot second = snap(r.sample());
        assertThat(second.value(HostMetrics.POWER, AttrKeys.HW_NAME, "package")).isCloseTo(10.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(second.value(HostMetrics.POWER, AttrKeys.HW_NAME, "dram")).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(second.value(HostMetrics.ENERGY, AttrKeys.HW_NAME, "package")).isCloseTo(20.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void unreadableRaplCounterIsAbsent(@TempDir Path sys) throws Exception {
        Path z = sys.resolve("class/powercap/intel-rapl:0");
        Path other = sys.resolve("class/powercap/intel-rapl:1");
        write(z.resolve("name"), "package-0\n");
        write(z.resolve("energy_uj"), "5");
        write(other.resolve("name"), "dram\n");
        write(other.resolve("energy_uj"), "7000000");
        // The kernel refuses energy_uj to non-root readers (since 5.10); CI runs as root, where file
        // modes do not refuse anything, so the refusal comes from the reader itself.
        RaplSampler r = new RaplSampler(sys, System::nanoTime, file -> {
            if (file.equals(z.resolve("energy_uj"))) {
                throw new java.nio.file.AccessDeniedException(file.toString());
            }
            return Files.readString(file);
        });
        List<Point> points = r.sample();
        // The refused zone is absent; the readable one still reports its baseline energy (0 J).
        assertThat(points).containsExactly(HostMetrics.energy("dram", 0.0));
    }

    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
