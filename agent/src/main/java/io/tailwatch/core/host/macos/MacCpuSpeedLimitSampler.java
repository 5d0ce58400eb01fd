package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;
import java.util.OptionalDouble;

/**
 * {@code CPU_Speed_Limit} from {@code IOPMCopyCPUPowerStatus}, as a ratio. Intel Macs report it;
 * Apple Silicon records none, which exports nothing and is not a failure.
 */
public final class MacCpuSpeedLimitSampler implements NativeSampler {
    private final Lazy<CpuPowerStatusSource> source;

    public MacCpuSpeedLimitSampler(Lazy<CpuPowerStatusSource> source) {
        this.source = source;
    }

    @Override
    public String name() {
        return "cpu_speed_limit";
    }

    @Override
    public String probeId() {
        return MacProbes.POWER_STATUS;
    }

    @Override
    public List<Point> sample() throws IOException {
        OptionalDouble ratio = CpuPowerStatus.speedLimitRatio(source.get().cpuPowerStatus());
        return ratio.isPresent() ? List.of(Point.of(HostMetrics.CPU_SPEED_LIMIT, ratio.getAsDouble())) : List.of();
    }
}
