package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Fan speeds from the SMC: {@code FNum} fans (ui8), each {@code F<n>Ac} (actual) as hw.fan.speed and
 * {@code F<n>Mx} (max) as hw.fan.speed.limit; {@code flt } on Apple silicon, {@code fpe2} on Intel Macs.
 * A Mac without fans (FNum missing or 0) exports nothing; a fan key that is missing or reads outside
 * 0 ... {@value #MAX_RPM} rpm is left out, never 0.
 */
public final class MacFanSampler implements NativeSampler, AutoCloseable {
    /** Fans read at most (the largest Macs have two or three). */
    static final int MAX_FANS = 8;
    static final double MAX_RPM = 100_000;
    private final Lazy<Smc> smc;

    public MacFanSampler(Lazy<Smc> smc) {
        this.smc = smc;
    }

    @Override
    public String name() {
        return "fans";
    }

    @Override
    public String probeId() {
        return MacProbes.SMC;
    }

    @Override
    public List<Point> sample() throws IOException {
        Smc s = smc.get();
        Double count = s.number("FNum");
        if (count == null || !(count >= 1)) {
            return List.of();
        }
        int n = (int) Math.min(count, MAX_FANS);
        List<Point> out = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            Double actual = s.number("F" + i + "Ac");
            if (actual != null && actual >= 0 && actual <= MAX_RPM) {
                out.add(HostMetrics.fanSpeed(i, actual));
            }
            Double max = s.number("F" + i + "Mx");
            if (max != null && max > 0 && max <= MAX_RPM) {
                out.add(HostMetrics.fanSpeedLimit(i, max));
            }
        }
        return out;
    }

    /** Closes the shared AppleSMC connection (the daemon closes its samplers on every reload). */
    @Override
    public void close() {
        Smc.closeIfOpened(smc);
    }
}
