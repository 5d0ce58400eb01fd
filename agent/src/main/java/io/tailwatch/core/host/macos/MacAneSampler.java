package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * tailwatch.ane.residency, the Neural Engine's busy share, from an IOReport subscription to its residency
 * counters ({@link AneResidency}). A Mac without them (no such group: Intel Macs, chips whose driver does
 * not publish them) exports nothing: the ANE's activity is unknown there, not 0.
 */
public final class MacAneSampler extends IOReportSampler {
    public MacAneSampler(Lazy<IOReportSource> source) {
        super(source);
    }

    @Override
    public String name() {
        return "ane";
    }

    @Override
    public String probeId() {
        return MacProbes.IOREPORT_ANE;
    }

    @Override
    public List<Point> sample() throws IOException {
        IOReportDelta delta = nextDelta();
        if (delta == null) {
            return List.of();
        }
        Double busy = AneResidency.busyShare(delta.channels());
        return busy == null ? List.of() : List.of(HostMetrics.aneResidency(busy));
    }
}
