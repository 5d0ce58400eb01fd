package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.ThrottleScope;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What caps the CPU, from sysfs. The speed limit is the lowest over CPUs of
 * {@code cpufreq/scaling_max_freq / cpuinfo_max_freq}: the ceiling the kernel (thermal or power
 * policy, a governor limit, a firmware cap) lets each CPU reach, which stays at 1 on an idle host.
 * The current speed is its own figure, the mean of {@code scaling_cur_freq}. Where the kernel has
 * x86 thermal throttle counters ({@code thermal_throttle/core_throttle_count}, summed over CPUs, and
 * {@code package_throttle_count}, once per physical package) they are exported as counters. Hosts
 * without cpufreq (many VMs) export none of these.
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
        double lowestLimit = Double.POSITIVE_INFINITY;
        double curSum = 0;
        int curCount = 0;
        long coreThrottles = 0;
        boolean coreSeen = false;
        Map<String, Long> packageThrottles = new HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "cpu[0-9]*")) {
            for (Path cpu : ds) {
                Path freq = cpu.resolve("cpufreq");
                Path max = freq.resolve("cpuinfo_max_freq");
                if (Files.exists(max)) {
                    long m = ProcFiles.readLong(max);
                    if (m <= 0) {
                        throw new IOException(max + ": impossible maximum frequency " + m);
                    }
                    Path cap = freq.resolve("scaling_max_freq");
                    if (Files.exists(cap)) {
                        long c = ProcFiles.readLong(cap);
                        if (c <= 0) {
                            throw new IOException(cap + ": impossible frequency " + c);
                        }
                        lowestLimit = Math.min(lowestLimit, Math.min(1.0, (double) c / m));
                    }
                    Path cur = freq.resolve("scaling_cur_freq");
                    if (Files.exists(cur)) {
                        long c = ProcFiles.readLong(cur);
                        if (c < 0) {
                            throw new IOException(cur + ": impossible frequency " + c);
                        }
                        curSum += c * 1000.0;
                        curCount++;
                    }
                }
                Path throttle = cpu.resolve("thermal_throttle");
                Path core = throttle.resolve("core_throttle_count");
                if (Files.exists(core)) {
                    coreThrottles += nonNegative(core);
                    coreSeen = true;
                }
                Path pkg = throttle.resolve("package_throttle_count");
                if (Files.exists(pkg)) {
                    Path id = cpu.resolve("topology").resolve("physical_package_id");
                    String key = Files.exists(id) ? ProcFiles.read(id).trim() : "0";
                    packageThrottles.merge(key, nonNegative(pkg), Math::max);
                }
            }
        }
        List<Point> out = new ArrayList<>(4);
        if (lowestLimit != Double.POSITIVE_INFINITY) {
            out.add(Point.of(HostMetrics.CPU_SPEED_LIMIT, lowestLimit));
        }
        if (curCount > 0) {
            out.add(Point.of(HostMetrics.CPU_FREQUENCY, curSum / curCount));
        }
        if (coreSeen) {
            out.add(Point.of(HostMetrics.CPU_THROTTLE_EVENTS, coreThrottles, ThrottleScope.CORE));
        }
        if (!packageThrottles.isEmpty()) {
            long sum = 0;
            for (long v : packageThrottles.values()) {
                sum += v;
            }
            out.add(Point.of(HostMetrics.CPU_THROTTLE_EVENTS, sum, ThrottleScope.PACKAGE));
        }
        return out;
    }

    private static long nonNegative(Path file) throws IOException {
        long v = ProcFiles.readLong(file);
        if (v < 0) {
            throw new IOException(file + ": negative count " + v);
        }
        return v;
    }
}
