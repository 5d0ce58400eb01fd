package io.tailwatch.core.host.linux;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.AttrValues.LoadWindow;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.AttrValues.PsiWindow;
import io.tailwatch.metrics.AttrValues.ThrottleScope;
import io.tailwatch.metrics.AttributeDef;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.testing.HostFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Linux sampler, run over fixture procfs/sysfs trees, publishes only declared attributes and, for
 * enumerated ones, only values the catalog allows; and between them they publish every value of the
 * host attributes Linux can report, so no typed constant is dead on this platform.
 */
class SamplersPublishCatalogValuesTest {

    @Test
    void everyPublishedValueIsAllowedAndEveryLinuxValueIsPublished(@TempDir Path dir) throws Exception {
        HostFixture host = HostFixture.copy("alerts-host", dir.resolve("host"));
        HostFixture capped = HostFixture.copy("linux-cpu-capped", dir.resolve("capped"));
        Path stat = host.procfs().resolve("stat");
        // Columns: user nice system idle iowait irq softirq steal: every mode moves between the two samples.
        Files.writeString(stat, "cpu  1000 100 500 8000 200 50 50 100 0 0\ncpu0 1000 100 500 8000 200 50 50 100 0 0\n");
        Files.writeString(host.procfs().resolve("pressure/cpu"), "some avg10=1.00 avg60=0.50 avg300=0.10 total=1000\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        Files.writeString(host.procfs().resolve("pressure/io"), "some avg10=1.00 avg60=0.50 avg300=0.10 total=1000\n"
                + "full avg10=0.50 avg60=0.20 avg300=0.05 total=500\n");
        Files.writeString(host.procfs().resolve("loadavg"), "0.52 0.58 0.59 2/418 12345\n");
        List<Sampler> samplers = List.of(new MemorySampler(host.procfs()), new CpuStatSampler(host.procfs(), true),
                new SwapSampler(host.procfs()), new PagingSampler(host.procfs()), new PressureSampler(host.procfs()),
                CpuIoPressureSampler.cpu(host.procfs()), CpuIoPressureSampler.io(host.procfs()),
                new LoadAverageSampler(host.procfs()),
                new ThermalSampler(host.sysfs()), new CpuFreqSampler(capped.sysfs()), new RaplSampler(host.sysfs()));
        List<Point> points = new ArrayList<>();
        for (Sampler s : samplers) {
            s.sample();
        }
        Files.writeString(stat, "cpu  1600 150 700 8900 300 100 100 200 0 0\ncpu0 1600 150 700 8900 300 100 100 200 0 0\n");
        MetricHub hub = new MetricHub();
        for (Sampler s : samplers) {
            List<Point> p = s.sample();
            hub.publish("host/" + s.name(), p); // the hub refuses a value the catalog does not allow
            points.addAll(p);
        }

        List<String> problems = new ArrayList<>();
        Map<String, Set<String>> seen = new TreeMap<>();
        for (Point p : points) {
            for (AttributeDef a : p.metric().attributes()) {
                if (!a.optional() && !p.attributes().containsKey(a.name())) {
                    problems.add(p.metric().name() + ": missing " + a.name());
                }
            }
            p.attributes().forEach((k, v) -> {
                AttributeDef a = p.metric().attribute(k);
                if (a == null) {
                    problems.add(p.metric().name() + ": undeclared attribute " + k);
                } else if (!a.values().isEmpty()) {
                    if (!a.allowed().contains(v)) {
                        problems.add(p.metric().name() + ": " + k + "=" + v + " not one of " + a.allowed());
                    }
                    seen.computeIfAbsent(k, x -> new TreeSet<>()).add(v);
                }
            });
        }
        assertThat(problems).isEmpty();
        assertThat(seen).containsEntry(AttrKeys.MEMORY_STATE, values(MemoryState.values()))
                .containsEntry(AttrKeys.PAGING_STATE, values(PagingState.values()))
                .containsEntry(AttrKeys.PAGING_DIRECTION, values(PagingDirection.values()))
                .containsEntry(AttrKeys.CPU_MODE, values(CpuMode.values()))
                .containsEntry(AttrKeys.PSI_KIND, values(PsiKind.values()))
                .containsEntry(AttrKeys.PSI_WINDOW, values(PsiWindow.values()))
                .containsEntry(AttrKeys.LOAD_WINDOW, values(LoadWindow.values()))
                .containsEntry(AttrKeys.THROTTLE_SCOPE, values(ThrottleScope.values()))
                .containsEntry(AttrKeys.HW_TYPE, Set.of("temperature", "cpu"));
    }

    private static Set<String> values(AttrValue[] values) {
        return new TreeSet<>(Arrays.stream(values).map(AttrValue::value).toList());
    }
}
