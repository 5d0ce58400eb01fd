package io.tailwatch.host.linux;

import io.tailwatch.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU speed limit as the mean over CPUs of scaling_cur_freq / cpuinfo_max_freq (cpufreq). Hosts
 * without cpufreq (many VMs) export nothing.
 */
public final class CpuFreqSampler implements Sampler {
    private final Path dir;

    public CpuFreqSampler(Path sysfs) {
        this.dir = sysfs.resolve("devices").resolve("system").resolve("cpu");
    }

    @Override
    public String name() {
        return "cpufreq";
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        double sum = 0;
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "cpu[0-9]*")) {
            for (Path cpu : ds) {
                Path cur = cpu.resolve("cpufreq").resolve("scaling_cur_freq");
                Path max = cpu.resolve("cpufreq").resolve("cpuinfo_max_freq");
                if (!Files.exists(cur) || !Files.exists(max)) {
                    continue;
                }
                long c = ProcFiles.readLong(cur);
                long m = ProcFiles.readLong(max);
                if (m <= 0 || c < 0) {
                    throw new IOException(cpu + "/cpufreq: impossible frequencies cur=" + c + " max=" + m);
                }
                sum += Math.min(1.0, (double) c / m);
                n++;
            }
        }
        if (n == 0) {
            return List.of();
        }
        return List.of(Point.of(HostMetrics.CPU_SPEED_LIMIT, sum / n));
    }
}
