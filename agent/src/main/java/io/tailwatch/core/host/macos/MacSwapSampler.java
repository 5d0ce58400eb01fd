package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * Swap from sysctl {@code vm.swapusage} read as {@code struct xsw_usage}. macOS grows and shrinks
 * swap files on demand, so a machine that has not swapped yet reports 0 used and 0 free.
 */
public final class MacSwapSampler implements NativeSampler {
    private final Lazy<MacSystem> system;

    public MacSwapSampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "swap";
    }

    @Override
    public String probeId() {
        return MacProbes.LIBSYSTEM;
    }

    @Override
    public List<Point> sample() throws IOException {
        XswUsage x = XswUsage.decode(system.get().sysctlStruct("vm.swapusage", XswUsage.SIZE));
        return points(x);
    }

    static List<Point> points(XswUsage x) {
        return List.of(
                Point.of(HostMetrics.PAGING_USAGE, x.used(), PagingState.USED),
                Point.of(HostMetrics.PAGING_USAGE, x.avail(), PagingState.FREE));
    }
}
