package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU and GPU die temperatures from the SMC as hw.temperature. The sensors are found once, by listing the
 * SMC's keys (#KEY, then key by index, a slice per sample) and keeping those of a die prefix whose type is {@code flt } or
 * {@code sp78}: Tp, Te, Ts (CPU) and Tg (GPU) on Apple silicon, TC (CPU) and TG (GPU) on Intel Macs.
 * A sensor reading outside (0, {@value #MAX_CELSIUS}] Cel is an unpopulated or failed one and is left out.
 */
public final class MacSmcTemperatureSampler implements NativeSampler, AutoCloseable {
    static final int MAX_SENSORS = 64;
    static final double MAX_CELSIUS = 150;
    /** Keys listed per sample while the sensors are being found. */
    static final int KEYS_PER_SAMPLE = 256;
    private final Lazy<Smc> smc;
    private final int keysPerSample;
    private final List<String> sensors = new ArrayList<>();
    private int keyCount = -1;
    private int cursor;

    public MacSmcTemperatureSampler(Lazy<Smc> smc) {
        this(smc, KEYS_PER_SAMPLE);
    }

    MacSmcTemperatureSampler(Lazy<Smc> smc, int keysPerSample) {
        this.smc = smc;
        this.keysPerSample = keysPerSample;
    }

    @Override
    public String name() {
        return "temperature";
    }

    @Override
    public String probeId() {
        return MacProbes.SMC;
    }

    /** "cpu", "gpu", or null for a key that is no die sensor. */
    static String component(String key) {
        if (key.length() != 4 || key.charAt(0) != 'T') {
            return null;
        }
        return switch (key.substring(0, 2)) {
            case "Tp", "Te", "Ts", "TC" -> "cpu";
            case "Tg", "TG" -> "gpu";
            default -> null;
        };
    }

    /** Whether {@code key} is a die sensor of a type this sampler reads. */
    private static boolean isSensor(Smc s, String key) throws IOException {
        if (component(key) == null) {
            return false;
        }
        SmcKeyData.KeyInfo info = s.keyInfo(key);
        return info != null && ((info.type().equals("flt ") && info.size() == 4) || (info.type().equals("sp78") && info.size() == 2));
    }

    /**
     * Lists the next keys (at most {@code keysPerSample} a cycle, so a slow SMC never holds a sample past its
     * deadline: an Intel SMC answers in about a millisecond, 2,000 keys would take seconds), then reads
     * every die sensor found so far.
     */
    @Override
    public synchronized List<Point> sample() throws IOException {
        Smc s = smc.get();
        if (keyCount < 0) {
            keyCount = s.keyCount();
        }
        int end = Math.min(keyCount, cursor + keysPerSample);
        for (; cursor < end && sensors.size() < MAX_SENSORS; cursor++) {
            String key = s.keyAt(cursor);
            if (key != null && isSensor(s, key)) {
                sensors.add(key);
            }
        }
        List<Point> out = new ArrayList<>(sensors.size());
        for (String key : sensors) {
            Double c = s.number(key);
            if (c != null && c > 0 && c <= MAX_CELSIUS) {
                out.add(HostMetrics.temperature("smc_" + key, component(key) + " " + key, c));
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
