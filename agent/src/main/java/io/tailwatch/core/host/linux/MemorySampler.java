package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Memory from /proc/meminfo. "cached" is Cached + SReclaimable (free(1)'s "cache"); "used" is
 * MemTotal - MemAvailable, the arithmetic of free(1) in procps-ng 4 (free.1 of procps-ng 4.0.2, as
 * shipped by Debian 12: "used: Used or unavailable memory (calculated as total - available)").
 * On kernels without MemAvailable (before 3.14) "used" falls back to the older free(1) formula
 * MemTotal - MemFree - Buffers - cached.
 */
public final class MemorySampler implements Sampler {
    private final Path meminfo;

    public MemorySampler(Path procfs) {
        this.meminfo = procfs.resolve("meminfo");
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public List<Point> sample() throws IOException {
        Map<String, Long> m = ProcFiles.meminfo(meminfo);
        long total = require(m, "MemTotal");
        long free = require(m, "MemFree");
        long buffers = m.getOrDefault("Buffers", 0L);
        long cached = m.getOrDefault("Cached", 0L) + m.getOrDefault("SReclaimable", 0L);
        Long available = m.get("MemAvailable");
        long used;
        if (available != null) {
            used = Math.max(0, total - available);
        } else {
            used = total - free - buffers - cached;
            if (used < 0) {
                used = total - free;
            }
        }
        List<Point> out = new ArrayList<>();
        out.add(Point.of(HostMetrics.MEMORY_LIMIT, total));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, used, MemoryState.USED));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, free, MemoryState.FREE));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, cached, MemoryState.CACHED));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, buffers, MemoryState.BUFFERS));
        if (available != null) {
            out.add(Point.of(HostMetrics.MEMORY_AVAILABLE, available));
            out.add(Point.of(HostMetrics.LINUX_MEMORY_AVAILABLE, available));
        }
        return out;
    }

    private long require(Map<String, Long> m, String key) throws IOException {
        Long v = m.get(key);
        if (v == null) {
            throw new IOException(meminfo + ": no " + key + " line");
        }
        return v;
    }
}
