package io.tailwatch.host.linux;

import io.tailwatch.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Memory from /proc/meminfo. "cached" is Cached + SReclaimable and "used" is
 * MemTotal - MemFree - Buffers - cached, the same arithmetic as free(1).
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
        long used = total - free - buffers - cached;
        if (used < 0) {
            used = total - free;
        }
        List<Point> out = new ArrayList<>();
        out.add(Point.of(HostMetrics.MEMORY_LIMIT, total));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, used, "system.memory.state", "used"));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, free, "system.memory.state", "free"));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, cached, "system.memory.state", "cached"));
        out.add(Point.of(HostMetrics.MEMORY_USAGE, buffers, "system.memory.state", "buffers"));
        Long available = m.get("MemAvailable");
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
