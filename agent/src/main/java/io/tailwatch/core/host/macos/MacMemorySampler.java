package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.AttrValues.MemoryPageState;
import io.tailwatch.metrics.AttrValues.MemoryState;
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
 * Available = (free - speculative) + file-backed + purgeable, capped at the total: three sets of
 * pages that do not overlap (see {@link #points}).
 */
public final class MacMemorySampler implements NativeSampler {
    private final Lazy<MacSystem> system;

    public MacMemorySampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String probeId() {
        return MacProbes.LIBSYSTEM;
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
        // Speculative pages are counted twice in vm_statistics64: xnu's vm_stats() reports
        // free_count = vm_page_free_count + vm_page_speculative_count (osfmk/kern/host.c line 799 at
        // apple-oss-distributions/xnu e3723e1f; vm_statistics.h lines 152-156: "speculative pages are
        // already accounted for in free_count"), and vm_page_speculate() puts the same page in
        // vm_page_pageable_external_count as well (osfmk/vm/vm_resident.c lines 5704-5705), which
        // vm_stats() reports as external_page_count (host.c line 852). So the pages on the free list
        // are free_count - speculative_count; speculative ones are counted once, in file-backed.
        // Purgeable pages belong to anonymous (internal) objects, so they overlap neither.
        long freeList = Math.max(0, vm.freeCount() - vm.speculativeCount()) * page;
        long available = Math.min(total, freeList + fileBacked + purgeable);
        List<Point> out = new ArrayList<>(9);
        out.add(Point.of(HostMetrics.MEMORY_LIMIT, total));
        out.add(state(used, MemoryState.USED));
        out.add(state(free, MemoryState.FREE));
        out.add(page(active, MemoryPageState.ACTIVE));
        out.add(page(inactive, MemoryPageState.INACTIVE));
        out.add(page(wired, MemoryPageState.WIRED));
        out.add(page(compressed, MemoryPageState.COMPRESSED));
        out.add(state(fileBacked, MemoryState.CACHED));
        out.add(Point.of(HostMetrics.MEMORY_AVAILABLE, available));
        return out;
    }

    private static Point page(long bytes, MemoryPageState state) {
        return Point.of(HostMetrics.MEMORY_PAGE_USAGE, bytes, state);
    }

    private static Point state(long bytes, MemoryState state) {
        return Point.of(HostMetrics.MEMORY_USAGE, bytes, state);
    }
}
