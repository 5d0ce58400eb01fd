package io.tailwatch.core.config;

import io.tailwatch.core.units.Units;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Host sampling: interval, per-sample deadline, (Linux) where procfs and sysfs are mounted, and whether
 * CPU time is also exported per logical CPU ({@code per_cpu}, off by default: 7 series per CPU).
 */
public record HostConfig(Duration interval, Duration timeout, Path procfs, Path sysfs, boolean perCpu) {
    public HostConfig(Duration interval, Duration timeout, Path procfs, Path sysfs) {
        this(interval, timeout, procfs, sysfs, false);
    }

    static HostConfig read(Section s) {
        Duration interval = s.duration("interval", Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofHours(1));
        // Without an explicit timeout, 2 s or the interval, whichever is shorter.
        Duration fallback = interval.compareTo(Duration.ofSeconds(2)) < 0 ? interval : Duration.ofSeconds(2);
        Duration timeout = s.duration("timeout", fallback, Duration.ofMillis(10), Duration.ofMinutes(1));
        if (timeout.compareTo(interval) > 0) {
            s.problem("timeout", "must not be longer than host.interval (" + Units.format(interval) + ")");
        }
        Path procfs = orDefault(s.path("procfs", "/proc"), "/proc");
        Path sysfs = orDefault(s.path("sysfs", "/sys"), "/sys");
        boolean perCpu = s.bool("per_cpu", false);
        s.finish();
        return new HostConfig(interval, timeout, procfs, sysfs, perCpu);
    }

    private static Path orDefault(Path p, String def) {
        return p == null ? Path.of(def) : p;
    }
}
