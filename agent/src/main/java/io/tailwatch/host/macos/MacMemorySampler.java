package io.tailwatch.host.macos;

import io.tailwatch.host.Lazy;
import io.tailwatch.host.Sampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory from {@code hw.memsize} and {@code host_statistics64(HOST_VM_INFO64)} page counts times the
 * page size. States: free (includes speculative), active, inactive, wired, compressed (pages the
 * compressor occupies), cached (file-backed; these pages also sit in active/inactive, so do not add
 * every state up), and used as Activity Monitor counts it (app memory + wired + compressed).
 * Available = free + file-backed + purgeable, capped at the total.
 */
public final class MacMemorySampler implements Sampler {
    private final Lazy<MacSystem> system;

    public MacMemorySampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public List<Point> sample() throws IOException {
        MacSystem s = system.get();
        long total = s.sysctlLong("hw.memsize");
        long page = s.pageSize();
        return points(total, page, VmStatistics64.decode(s.vmStatistics64()));
    }

    static List<Point> points(long total, long page, VmStatistics64 vm) throws IOException {
        if (total <= 0 || page <= 0) {
            throw new IOException("impossible memory size " + total + " or page size " + page);
        }
        long free = vm.freeCount() * page;
        long active = vm.activeCount() * page;
        long inactive = vm.inactiveCount() * page;
        long wired = vm.wireCount() * page;
        long compressed = vm.compressorPageCount() * page;
        long fileBacked = vm.externalPageCount() * page;
        long purgeable = vm.purgeableCount() * page;
        long appMemory = Math.max(0, vm.internalPageCount() - vm.purgeableCount()) * page;
        if (free + active + inactive + wired + compressed > total + total / 10) {
            throw new IOException("host_statistics64: page counts add up to more than hw.memsize (" + total + " bytes)");
        }
        long used = Math.min(total, appMemory + wired + compressed);
        long available = Math.min(total, free + fileBacked + purgeable);
        List<Point> out = new ArrayList<>(9);
        out.add(Point.of(HostMetrics.MEMORY_LIMIT, total));
        out.add(state(used, "used"));
        out.add(state(free, "free"));
        out.add(page(active, "active"));
        out.add(page(inactive, "inactive"));
        out.add(page(wired, "wired"));
        out.add(page(compressed, "compressed"));
        out.add(state(fileBacked, "cached"));
        out.add(Point.of(HostMetrics.MEMORY_AVAILABLE, available));
        return out;
    }

    private static Point page(long bytes, String state) {
        return Point.of(HostMetrics.MEMORY_PAGE_USAGE, bytes, AttrKeys.MEMORY_PAGE_STATE, state);
    }

    private static Point state(long bytes, String state) {
        return Point.of(HostMetrics.MEMORY_USAGE, bytes, "system.memory.state", state);
    }
}
