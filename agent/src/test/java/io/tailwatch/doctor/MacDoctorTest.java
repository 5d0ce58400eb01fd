package io.tailwatch.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.host.HostSnapshot;
import io.tailwatch.host.SamplerResult;
import io.tailwatch.metrics.AttrKeys;
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
    static final long PAGE = 16384;
    static final String VM_STAT = io.tailwatch.host.macos.MacToolTextFixtures.VM_STAT;

    private static List<Point> m1ProPoints() {
        List<Point> p = new ArrayList<>();
        p.add(Point.of(HostMetrics.MEMORY_LIMIT, 17_179_869_184L));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, (4229 + 681) * PAGE, "system.memory.state", "free"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 186123 * PAGE, AttrKeys.MEMORY_PAGE_STATE, "active"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 184925 * PAGE, AttrKeys.MEMORY_PAGE_STATE, "inactive"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 198107 * PAGE, AttrKeys.MEMORY_PAGE_STATE, "wired"));
        p.add(Point.of(HostMetrics.MEMORY_PAGE_USAGE, 436782 * PAGE, AttrKeys.MEMORY_PAGE_STATE, "compressed"));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, 133056 * PAGE, "system.memory.state", "cached"));
        p.add(Point.of(HostMetrics.MEMORY_USAGE, (238673 - 24 + 198107 + 436782) * PAGE, "system.memory.state", "used"));
        p.add(Point.of(HostMetrics.PAGING_USAGE, 2743.5 * (1 << 20), "system.paging.state", "used"));
        p.add(Point.of(HostMetrics.PAGING_USAGE, 1352.5 * (1 << 20), "system.paging.state", "free"));
        p.add(Point.of(HostMetrics.PRESSURE_LEVEL, 0));
        p.add(Point.of(HostMetrics.MEMORY_FREE_RATIO, 0.37));
        p.add(Point.of(HostMetrics.THERMAL_LEVEL, 0));
        p.add(HostMetrics.power("cpu", 3.2));
        p.add(HostMetrics.power("gpu", 0.4));
        return p;
    }

    private static HostSnapshot snapshot(List<Point> points) {
        return new HostSnapshot(Instant.now(), points, Map.of("memory", new SamplerResult("memory", true, Duration.ZERO, null)));
    }

    private static Map<List<String>, String> outputs() {
        Map<List<String>, String> o = new HashMap<>();
        o.put(MacDoctor.HW_MEMSIZE, "17179869184\n");
        o.put(MacDoctor.SWAPUSAGE, "vm.swapusage: total = 4096.00M  used = 2743.50M  free = 1352.50M  (encrypted)\n");
        o.put(MacDoctor.PRESSURE_LEVEL, "1\n");
        o.put(MacDoctor.VM_STAT, VM_STAT);
        o.put(MacDoctor.PMSET_THERM, io.tailwatch.host.macos.MacToolTextFixtures.PMSET_APPLE_SILICON);
        o.put(MacDoctor.MEMORY_PRESSURE, "System-wide memory free percentage: 36%\n");
        return o;
    }

    private static Check.Verdict verdict(List<Check> checks, String signal) {
        return checks.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow().verdict();
    }

    @Test
    void nativeReadingsAgreeWithTheCapturedTools() {
        List<Check> checks = MacDoctor.checks(snapshot(m1ProPoints()), outputs(), Map.of());
        DoctorReport report = new DoctorReport("macOS", checks, Map.of());
        assertThat(report.failed()).as(report.render()).isFalse();
        for (String s : List.of("system.memory.limit", "system.memory.usage{free}", "tailwatch.memory.page.usage{active}",
                "tailwatch.memory.page.usage{wired}", "tailwatch.memory.page.usage{compressed}", "system.memory.usage{cached}",
                "system.paging.usage{used}+{free}", "system.paging.usage{used}", "tailwatch.memory.pressure.level",
                "tailwatch.memory.free.ratio")) {
            assertThat(verdict(checks, s)).as(s).isEqualTo(Check.Verdict.AGREE);
        }
        // Apple Silicon: no CPU_Speed_Limit on either side is agreement, not an error.
        assertThat(verdict(checks, "tailwatch.cpu.speed.limit")).isEqualTo(Check.Verdict.AGREE);
        assertThat(verdict(checks, "hw.power (sum of rails)")).isEqualTo(Check.Verdict.CHECKED);
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
        o.put(MacDoctor.PMSET_THERM, io.tailwatch.host.macos.MacToolTextFixtures.PMSET_INTEL);
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
