package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * Paging activity from {@code host_statistics64(HOST_VM_INFO64)}: {@code swapins} and
 * {@code swapouts} of {@code struct vm_statistics64}, counted since boot. On macOS these count
 * compressor segments moved to and from the swap files (not bytes); a rising count is what makes
 * latency suffer, while {@code vm.swapusage} can stay high long after paging stopped.
 */
public final class MacPagingSampler implements NativeSampler {
    private final Lazy<MacSystem> system;

    public MacPagingSampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "paging";
    }

    @Override
    public String probeId() {
        return MacProbes.LIBSYSTEM;
    }

    @Override
    public List<Point> sample() throws IOException {
        return points(VmStatistics64.decode(system.get().vmStatistics64()));
    }

    static List<Point> points(VmStatistics64 vm) throws IOException {
        if (vm.swapins() < 0 || vm.swapouts() < 0) {
            throw new IOException("vm_statistics64: swap counters beyond 2^63 (swapins " + Long.toUnsignedString(vm.swapins())
                    + ", swapouts " + Long.toUnsignedString(vm.swapouts()) + ")");
        }
        return List.of(
                Point.of(HostMetrics.PAGING_OPERATIONS, vm.swapins(), PagingDirection.IN),
                Point.of(HostMetrics.PAGING_OPERATIONS, vm.swapouts(), PagingDirection.OUT));
    }
}
