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
 * SMC's keys (#KEY, then key by index) and keeping those of a die prefix whose type is {@code flt } or
 * {@code sp78}: Tp, Te, Ts (CPU) and Tg (GPU) on Apple silicon, TC (CPU) and TG (GPU) on Intel Macs.
 * A sensor reading outside (0, {@value #MAX_CELSIUS}] Cel is an unpopulated or failed one and is left out.
 */
public final class MacSmcTemperatureSampler implements NativeSampler, AutoCloseable {
    static final int MAX_SENSORS = 64;
    static final double MAX_CELSIUS = 150;
    private final Lazy<Smc> smc;
    private List<String> sensors;

    public MacSmcTemperatureSampler(Lazy<Smc> smc) {
        this.smc = smc;
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

    /** The die sensors among the SMC's keys, in key order, at most {@link #MAX_SENSORS}. */
    static List<String> discover(Smc s) throws IOException {
        List<String> found = new ArrayList<>();
        for (String key : s.keys(Smc.MAX_KEYS)) {
            if (found.size() >= MAX_SENSORS) {
                break;
            }
            if (component(key) == null) {
                continue;
            }
            SmcKeyData.KeyInfo info = s.keyInfo(key);
            if (info != null && ((info.type().equals("flt ") && info.size() == 4) || (info.type().equals("sp78") && info.size() == 2))) {
                found.add(key);
            }
        }
        return List.copyOf(found);
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        Smc s = smc.get();
        if (sensors == null) {
            sensors = discover(s);
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
