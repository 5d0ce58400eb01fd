package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * CPU or I/O pressure from PSI ({@code /proc/pressure/cpu}, {@code /proc/pressure/io}; the format of
 * {@link PressureSampler}): the avg10/60/300 ratios as gauges and the total stall time as a counter in
 * seconds. For CPU only "some" is read: the kernel prints "full" for CPU (since 5.13) as 0 at the system
 * level, where it is undefined. A kernel without PSI, or booted with psi=0, has no such file: nothing is
 * exported. One sampler per file, so one broken file loses only its own series.
 */
public final class CpuIoPressureSampler implements Sampler {
    private final String name;
    private final Path file;
    private final MetricDef stall;
    private final MetricDef stallTime;
    private final List<PsiKind> kinds;

    private CpuIoPressureSampler(String name, Path file, MetricDef stall, MetricDef stallTime, List<PsiKind> kinds) {
        this.name = name;
        this.file = file;
        this.stall = stall;
        this.stallTime = stallTime;
        this.kinds = kinds;
    }

    public static CpuIoPressureSampler cpu(Path procfs) {
        return new CpuIoPressureSampler("pressure_cpu", procfs.resolve("pressure").resolve("cpu"),
                HostMetrics.CPU_PRESSURE_STALL, HostMetrics.CPU_PRESSURE_STALL_TIME, List.of(PsiKind.SOME));
    }

    public static CpuIoPressureSampler io(Path procfs) {
        return new CpuIoPressureSampler("pressure_io", procfs.resolve("pressure").resolve("io"),
                HostMetrics.IO_PRESSURE_STALL, HostMetrics.IO_PRESSURE_STALL_TIME, List.of(PsiKind.values()));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        Map<String, Map<String, Double>> psi = PressureSampler.parse(file, ProcFiles.read(file));
        if (!psi.containsKey(PsiKind.SOME.value())) {
            throw new IOException(file + ": no 'some' line");
        }
        List<Point> out = new ArrayList<>();
        PressureSampler.export(psi, stall, stallTime, kinds, out);
        return out;
    }
}
