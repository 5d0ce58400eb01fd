package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.SamplerResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The macOS doctor's comparisons on Linux: a snapshot as the macOS samplers produce it from the
 * M1 Pro fixture, beside the captured tool outputs of docs/macos.md.
 */
class MacDoctorTest {
    /**
     * What the macOS samplers read at one moment, as literal bytes: the M1 Pro capture's
     * vm_statistics64 page counts x 16384, worked by hand (free_count 4910 includes the 681
     * speculative pages; used = (238673 - 24) + 198107 + 436782 pages; available = (4910 - 681) +
     * 133056 + 24 pages).
     */
    private static List<Point> m1ProPoints() {
        List<Point> p = new ArrayList<>();
        p.add(Point.of(HostMetrics.MEMORY_LIMIT, 17_179_869_184L));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, 80_445_440L, MemoryState.FREE));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 3_049_439_232L, AttrKeys.MEMORY_PAGE_STATE, "active"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 3_029_811_200L, AttrKeys.MEMORY_PAGE_STATE, "inactive"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 3_245_785_088L, AttrKeys.MEMORY_PAGE_STATE, "wired"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 7_156_236_288L, AttrKeys.MEMORY_PAGE_STATE, "compressed"));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, 2_179_989_504L, MemoryState.CACHED));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, 14_312_046_592L, MemoryState.USED));
        p.add(Point.of(HostMetrics.MEMORY_AVAILABLE, 2_249_670_656L));
        p.add(Point.of(HostMetrics.PAGING_USAGE, 2743.5 * (1 << 20), PagingState.USED));
        p.add(Point.of(HostMetrics.PAGING_USAGE, 1352.5 * (1 << 20), PagingState.FREE));
        p.add(Point.of(HostMetrics.PRESSURE_LEVEL, 0));
        p.add(Point.of(HostMetrics.MEMORY_FREE_RATIO, 0.37));
        p.add(Point.of(HostMetrics.THERMAL_LEVEL, 0));
        p.add(HostMetrics.power("cpu", 3.2));
        p.add(HostMetrics.power("gpu", 0.4));
        return p;
    }

    /**
     * vm_stat as it would read a moment after that sample: the captured output edited by hand (not a
     * second real capture, and not the sampler's input). Pages moved between the two reads: 1500 free pages went to active (free 4229 -> 2729, active
     * 186123 -> 187623), 900 inactive pages were compressed (occupied 436782 -> 437682), and the
     * rest held still.
     */
    static final String VM_STAT_LATER = """
            Mach Virtual Memory Statistics: (page size of 16384 bytes)
            Pages free:                                     2729.
            Pages active:                                 187623.
            Pages inactive:                               184025.
            Pages speculative:                               681.
            Pages throttled:                                   0.
            Pages wired down:                             198107.
            Pages purgeable:                                  24.
            "Translation faults":                     6085912557.
            Pages copy-on-write:                       391952627.
            Pages zero filled:                        2318479316.
            Pages reactivated:                        1417078090.
            Pages purged:                               61860720.
            File-backed pages:                            133056.
            Anonymous pages:                              240173.
            Pages stored in compressor:                  1740074.
            Pages occupied by compressor:                 437682.
            Decompressions:                            950112330.
            Compressions:                             1066063984.
            Pageins:                                    86971767.
            Pageouts:                                    1809283.
            Swapins:                                     4693446.
            Swapouts:                                    6168528.
            """;

    private static HostSnapshot snapshot(List<Point> points) {
        return new HostSnapshot(Instant.now(), points, Map.of("memory", new SamplerResult("memory", true, Duration.ZERO, null)));
    }

    private static Map<List<String>, String> outputs() {
        Map<List<String>, String> o = new HashMap<>();
        o.put(MacDoctor.HW_MEMSIZE, "17179869184\n");
        o.put(MacDoctor.SWAPUSAGE, "vm.swapusage: total = 4096.00M  used = 2743.50M  free = 1352.50M  (encrypted)\n");
        o.put(MacDoctor.PRESSURE_LEVEL, "1\n");
        o.put(MacDoctor.VM_STAT, VM_STAT_LATER);
        o.put(MacDoctor.PMSET_THERM, io.tailwatch.core.host.macos.MacToolTextFixtures.PMSET_APPLE_SILICON);
        o.put(MacDoctor.MEMORY_PRESSURE, "System-wide memory free percentage: 36%\n");
        o.put(MacDoctor.NOTIFYUTIL_THERMAL, io.tailwatch.core.host.macos.MacToolTextFixtures.NOTIFYUTIL_THERMAL);
        return o;
    }

    private static Check check(List<Check> checks, String signal) {
        return checks.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow();
    }

    private static Check.Verdict verdict(List<Check> checks, String signal) {
        return check(checks, signal).verdict();
    }

    @Test
    void nativeReadingsAgreeWithTheCapturedTools() {
        List<Check> checks = MacDoctor.checks(snapshot(m1ProPoints()), outputs(), Map.of());
        DoctorReport report = new DoctorReport("macOS", checks, Map.of());
        assertThat(report.failed()).as(report.render()).isFalse();
        for (String s : List.of("system.memory.limit", "system.memory.usage{free}", "tailwatch.memory.page.usage{active}",
                "tailwatch.memory.page.usage{wired}", "tailwatch.memory.page.usage{compressed}", "system.memory.usage{cached}",
                "system.memory.usage{used}", "tailwatch.memory.available",
                "system.paging.usage{used}+{free}", "system.paging.usage{used}", "tailwatch.memory.pressure.level",
                "tailwatch.memory.free.ratio")) {
            assertThat(verdict(checks, s)).as(s).isEqualTo(Check.Verdict.AGREE);
        }
        // Apple Silicon: no CPU_Speed_Limit on either side is agreement, not an error.
        assertThat(verdict(checks, "tailwatch.cpu.speed.limit")).isEqualTo(Check.Verdict.AGREE);
        assertThat(verdict(checks, "hw.power (sum of rails)")).isEqualTo(Check.Verdict.CHECKED);
    }

    @Test
    void eachFieldIsComparedWithItsOwnValueAndBothNumbersAreShown() {
        List<Check> checks = MacDoctor.checks(snapshot(m1ProPoints()), outputs(), Map.of());
        // free: native 80,445,440 B; vm_stat later (2729 + 681) x 16384 = 55,869,440 B. They differ by
        // 24,576,000 B (1500 pages), inside the 64 MiB floor (5 % of 55.9 MB is only 2.8 MB).
        Check free = check(checks, "system.memory.usage{free}");
        assertThat(free.verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(free.nativeValue()).startsWith("80445440 B");
        assertThat(free.toolValue()).startsWith("55869440 B");
        assertThat(free.tolerance()).contains("5 % of the tool's value").contains("67108864 B");
        // compressed: 437682 x 16384 = 7,170,981,888 B; 5 % of it = 358,549,094 B is the tolerance.
        Check compressed = check(checks, "tailwatch.memory.page.usage{compressed}");
        assertThat(compressed.toolValue()).startsWith("7170981888 B");
        assertThat(compressed.tolerance()).endsWith("358549094 B (0.33 GiB)");
        // used from vm_stat: (240173 - 24) + 198107 + 437682 = 875938 pages = 14,351,368,192 B,
        // 39,321,600 B above the sampled 14,312,046,592 B: agrees.
        assertThat(check(checks, "system.memory.usage{used}").toolValue()).startsWith("14351368192 B");
        // available from vm_stat: 2729 + 133056 + 24 = 135809 pages = 2,225,094,656 B.
        assertThat(check(checks, "tailwatch.memory.available").toolValue()).startsWith("2225094656 B");
    }

    @Test
    void aFieldReadAsZeroDisagreesEvenOnABigMac() {
        // The old tolerance (5 % of total memory) let any field under 6.4 GB read as 0 on 128 GB.
        List<Point> p = new ArrayList<>(m1ProPoints());
        p.removeIf(x -> x.metric() == HostMetrics.MEMORY_LIMIT
                || "wired".equals(x.attributes().get(AttrKeys.MEMORY_PAGE_STATE))
                || "cached".equals(x.attributes().get("system.memory.state")));
        p.add(Point.of(HostMetrics.MEMORY_LIMIT, 128L << 30));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 0, AttrKeys.MEMORY_PAGE_STATE, "wired"));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, 0, MemoryState.CACHED));
        Map<List<String>, String> o = outputs();
        o.put(MacDoctor.HW_MEMSIZE, Long.toString(128L << 30));
        List<Check> checks = MacDoctor.checks(snapshot(p), o, Map.of());
        // wired: 198107 x 16384 = 3,245,785,088 B in vm_stat against 0 read natively.
        assertThat(verdict(checks, "tailwatch.memory.page.usage{wired}")).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(check(checks, "tailwatch.memory.page.usage{wired}").note()).contains("3245785088 B");
        // cached: 133056 x 16384 = 2,179,989,504 B.
        assertThat(verdict(checks, "system.memory.usage{cached}")).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(new DoctorReport("macOS", checks, Map.of()).failed()).isTrue();
    }

    @Test
    void thermalLevelAgainstNotifyutil() {
        assertThat(verdict(MacDoctor.checks(snapshot(m1ProPoints()), outputs(), Map.of()), "tailwatch.thermal.pressure.level"))
                .isEqualTo(Check.Verdict.AGREE);
        Map<List<String>, String> o = outputs();
        o.put(MacDoctor.NOTIFYUTIL_THERMAL, "com.apple.system.thermalpressurelevel 2\n");
        Check c = check(MacDoctor.checks(snapshot(m1ProPoints()), o, Map.of()), "tailwatch.thermal.pressure.level");
        assertThat(c.verdict()).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(c.nativeValue()).isEqualTo("0");
        assertThat(c.toolValue()).isEqualTo("2");
    }

    @Test
    void powermetricsOnlyWithSudoAndAgainstEachRail() {
        // Without --with-sudo no powermetrics row at all.
        assertThat(MacDoctor.checks(snapshot(m1ProPoints()), outputs(), Map.of()))
                .noneMatch(c -> c.tool().contains("powermetrics"));
        List<Point> p = new ArrayList<>(m1ProPoints());
        p.add(Point.of(HostMetrics.GPU_FREQUENCY, 420e6));
        Map<List<String>, String> o = outputs();
        o.put(MacDoctor.POWERMETRICS, io.tailwatch.core.host.macos.MacToolTextFixtures.POWERMETRICS_M1_PRO);
        List<Check> checks = MacDoctor.checks(snapshot(p), o, Map.of());
        // cpu: 3.2 W native vs 1.123 W: differs by 2.077 W, more than max(50 % of 1.123, 1 W) = 1 W.
        assertThat(verdict(checks, "hw.power{cpu}")).isEqualTo(Check.Verdict.DISAGREE);
        // gpu: 0.4 W vs 0.024 W: 0.376 W apart, inside the 1 W floor.
        assertThat(verdict(checks, "hw.power{gpu}")).isEqualTo(Check.Verdict.AGREE);
        // ane: tailwatch has no ane rail in this snapshot while powermetrics prints 0 mW.
        assertThat(verdict(checks, "hw.power{ane}")).isEqualTo(Check.Verdict.DISAGREE);
        // GPU: 420 MHz vs 389 MHz, 31 MHz apart, inside max(25 % of 389 MHz, 100 MHz).
        assertThat(verdict(checks, "tailwatch.gpu.frequency")).isEqualTo(Check.Verdict.AGREE);
        // sudo without cached credentials: n/a, not a failure.
        Map<List<String>, String> noSudo = outputs();
        List<Check> n = MacDoctor.checks(snapshot(p), noSudo,
                Map.of(MacDoctor.POWERMETRICS, "sudo -n powermetrics: exit status 1"));
        assertThat(n).anyMatch(c -> c.tool().contains("powermetrics") && c.verdict() == Check.Verdict.UNAVAILABLE);
    }

    @Test
    void engineFootprintAgainstTheFootprintTool() {
        List<Point> p = new ArrayList<>(m1ProPoints());
        // Native ri_phys_footprint 1,500,000,000 B vs footprint's 1,512,243,200 B: 12,243,200 B apart,
        // inside max(10 % of 1.51 GB, 8 MiB) = 151,224,320 B.
        p.add(Point.of(HostMetrics.PROCESS_FOOTPRINT, 1_500_000_000L, AttrKeys.ENGINE, "ollama"));
        ToolRunner tools = cmd -> {
            if (cmd.equals(List.of("footprint", "-f", "bytes", "4242"))) {
                return io.tailwatch.core.host.macos.MacToolTextFixtures.FOOTPRINT_OLLAMA;
            }
            throw new java.io.IOException(String.join(" ", cmd) + ": cannot run");
        };
        Check c = EngineProcessChecks.footprint(snapshot(p), "ollama", java.util.Set.of(4242), tools);
        assertThat(c.verdict()).as(c.toString()).isEqualTo(Check.Verdict.AGREE);
        assertThat(c.toolValue()).startsWith("1512243200 B");
        // Read as 0 natively: disagrees.
        List<Point> zero = new ArrayList<>(m1ProPoints());
        zero.add(Point.of(HostMetrics.PROCESS_FOOTPRINT, 0, AttrKeys.ENGINE, "ollama"));
        assertThat(EngineProcessChecks.footprint(snapshot(zero), "ollama", java.util.Set.of(4242), tools).verdict())
                .isEqualTo(Check.Verdict.DISAGREE);
        // A process footprint cannot inspect (another user's, without root): n/a.
        assertThat(EngineProcessChecks.footprint(snapshot(p), "ollama", java.util.Set.of(7), tools).verdict())
                .isEqualTo(Check.Verdict.UNAVAILABLE);
    }

    @Test
    void aDecimalCommaLocaleStillAgrees() {
        Map<List<String>, String> o = outputs();
        o.put(MacDoctor.SWAPUSAGE, "vm.swapusage: total = 4096,00M  used = 2743,50M  free = 1352,50M  (encrypted)\n");
        assertThat(verdict(MacDoctor.checks(snapshot(m1ProPoints()), o, Map.of()), "system.paging.usage{used}"))
                .isEqualTo(Check.Verdict.AGREE);
    }

    @Test
    void disagreementsAndImpossibleReadingsFailTheReport() {
        List<Point> p = m1ProPoints();
        p.removeIf(x -> x.metric() == HostMetrics.PRESSURE_LEVEL || x.metric() == HostMetrics.POWER);
        p.add(Point.of(HostMetrics.PRESSURE_LEVEL, 2));
        p.add(HostMetrics.power("gpu", 25_000));
        Map<List<String>, String> o = outputs();
        o.put(MacDoctor.PMSET_THERM, io.tailwatch.core.host.macos.MacToolTextFixtures.PMSET_INTEL);
        List<Check> checks = MacDoctor.checks(snapshot(p), o, Map.of());
        assertThat(verdict(checks, "tailwatch.memory.pressure.level")).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(verdict(checks, "hw.power{gpu}")).isEqualTo(Check.Verdict.INVALID);
        // The tool shows a speed limit tailwatch did not read.
        assertThat(verdict(checks, "tailwatch.cpu.speed.limit")).isEqualTo(Check.Verdict.DISAGREE);
        assertThat(new DoctorReport("macOS", checks, Map.of()).failed()).isTrue();
    }

    @Test
    void aToolThatCannotRunIsNotADisagreement() {
        Map<List<String>, String> o = outputs();
        o.remove(MacDoctor.VM_STAT);
        List<Check> checks = MacDoctor.checks(snapshot(m1ProPoints()), o, Map.of(MacDoctor.VM_STAT, "vm_stat: cannot run"));
        assertThat(verdict(checks, "system.memory.usage")).isEqualTo(Check.Verdict.UNAVAILABLE);
        assertThat(new DoctorReport("macOS", checks, Map.of()).render()).contains("vm_stat: cannot run");
    }

    @Test
    void freeBParsesByColumnName() throws Exception {
        Map<String, Long> f = LinuxDoctor.parseFree("""
                               total        used        free      shared  buff/cache   available
                Mem:     25276026880   419917824 24621834240     9166848   485556224 24856109056
                Swap:     2147479552    10485760  2136993792
                """);
        assertThat(f).containsEntry("Mem.total", 25276026880L).containsEntry("Mem.available", 24856109056L)
                .containsEntry("Mem.buff/cache", 485556224L).containsEntry("Swap.used", 10485760L);
    }
}
