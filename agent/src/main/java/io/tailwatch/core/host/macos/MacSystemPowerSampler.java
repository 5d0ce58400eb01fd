package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Whole-machine power from the SMC key {@value #KEY} as hw.host.power, and its integral since the agent
 * started as hw.host.energy (the trapezoid between consecutive readings). A missing key, or a reading that
 * is not a finite non-negative figure, is absent and ends the interval: the next reading starts a new
 * one, so no energy is made up for a gap. The first reading gives power alone.
 */
public final class MacSystemPowerSampler implements NativeSampler, AutoCloseable {
    public static final String KEY = "PSTR";
    private final Lazy<Smc> smc;
    private final LongSupplier nanos;
    private double joules;
    private boolean haveEnergy;
    private double lastWatts;
    private long lastNanos;
    private boolean haveLast;

    public MacSystemPowerSampler(Lazy<Smc> smc) {
        this(smc, System::nanoTime);
    }

    MacSystemPowerSampler(Lazy<Smc> smc, LongSupplier nanos) {
        this.smc = smc;
        this.nanos = nanos;
    }

    @Override
    public String name() {
        return "system-power";
    }

    @Override
    public String probeId() {
        return MacProbes.SMC;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        Double w;
        try {
            w = smc.get().number(KEY);
        } catch (IOException | RuntimeException e) {
            haveLast = false;
            throw e;
        }
        if (w == null || !Double.isFinite(w) || w < 0) {
            haveLast = false;
            return List.of();
        }
        long now = nanos.getAsLong();
        if (haveLast && now > lastNanos) {
            joules += (lastWatts + w) / 2 * ((now - lastNanos) / 1e9);
            haveEnergy = true;
        }
        lastWatts = w;
        lastNanos = now;
        haveLast = true;
        List<Point> out = new ArrayList<>(2);
        out.add(HostMetrics.hostPower(w));
        if (haveEnergy) {
            out.add(HostMetrics.hostEnergy(joules));
        }
        return out;
    }

    /** Closes the shared AppleSMC connection (the daemon closes its samplers on every reload). */
    @Override
    public void close() {
        Smc.closeIfOpened(smc);
    }
}
