package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * GPU active residency and average frequency from an IOReport subscription to "GPU Stats". The
 * frequency needs the GPU's DVFS table; without it only the utilization is exported. A counter
 * reset or an empty interval exports nothing for that cycle.
 */
public final class MacGpuSampler extends IOReportSampler {
    private final Lazy<long[]> frequencies;

    public MacGpuSampler(Lazy<IOReportSource> source, Lazy<long[]> frequencies) {
        super(source);
        this.frequencies = frequencies;
    }

    @Override
    public String name() {
        return "gpu";
    }

    @Override
    public String probeId() {
        return MacProbes.IOREPORT_GPU;
    }

    @Override
    public List<Point> sample() throws IOException {
        IOReportDelta delta = nextDelta();
        if (delta == null) {
            return List.of();
        }
        boolean present = delta.channels().stream().anyMatch(c -> c.group().equals(GpuResidency.GROUP)
                && c.name().equals(GpuResidency.CHANNEL));
        if (!present) {
            throw new IOException("no " + GpuResidency.CHANNEL + " channel in " + GpuResidency.GROUP);
        }
        GpuResidency.Reading r = GpuResidency.decode(delta.channels(), frequencies.getOrNull());
        if (r == null) {
            return List.of();
        }
        List<Point> out = new ArrayList<>(2);
        out.add(HostMetrics.gpuUtilization(r.utilization()));
        if (r.frequencyHz() != null) {
            out.add(Point.of(HostMetrics.GPU_FREQUENCY, r.frequencyHz()));
        }
        return out;
    }
}
