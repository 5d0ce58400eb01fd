package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Swap from /proc/meminfo: used = SwapTotal - SwapFree. A host without swap reports 0 used, 0 free. */
public final class SwapSampler implements Sampler {
    private final Path meminfo;

    public SwapSampler(Path procfs) {
        this.meminfo = procfs.resolve("meminfo");
    }

    @Override
    public String name() {
        return "swap";
    }

    @Override
    public List<Point> sample() throws IOException {
        Map<String, Long> m = ProcFiles.meminfo(meminfo);
        Long total = m.get("SwapTotal");
        Long free = m.get("SwapFree");
        if (total == null || free == null) {
            throw new IOException(meminfo + ": no SwapTotal/SwapFree lines");
        }
        if (free > total) {
            throw new IOException(meminfo + ": SwapFree " + free + " exceeds SwapTotal " + total);
        }
        return List.of(
                Point.of(HostMetrics.PAGING_USAGE, total - free, PagingState.USED),
                Point.of(HostMetrics.PAGING_USAGE, free, PagingState.FREE));
    }
}
