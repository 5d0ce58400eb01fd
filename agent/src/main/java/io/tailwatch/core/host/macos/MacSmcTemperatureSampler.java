package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * CPU and GPU die temperatures from the SMC as hw.temperature. The sensors are found once, by listing the
 * SMC's keys (#KEY, then key by index, a slice per sample) and keeping those of a die prefix whose type is {@code flt } or
 * {@code sp78}: Tp, Te, Ts (CPU) and Tg (GPU) on Apple silicon, TC (CPU) and TG (GPU) on Intel Macs.
 * A sensor reading below {@value #MIN_CELSIUS} Cel is left out: with a core cluster power-gated the SMC
 * reports fixed fake values (4.6 to 9.8 Cel seen), and no die of a running Mac is that cold; above
 * {@value #MAX_CELSIUS} Cel is a failed one. Beside the per-sensor keys the chip-independent CPU die
 * aggregates {@code TCMb} (average) and {@code TCMz} (maximum) are read where the SMC has them, by name,
 * so the CPU die has a figure on chips whose per-sensor keys this sampler does not know.
 */
public final class MacSmcTemperatureSampler implements NativeSampler, AutoCloseable {
    static final int MAX_SENSORS = 64;
    static final double MAX_CELSIUS = 150;
    /** The lowest reading kept: a power-gated cluster's sensors report fixed values below it. */
    static final double MIN_CELSIUS = 15;
    /** The CPU die aggregates and their hw.name: average and maximum over the die's sensors. */
    static final Map<String, String> AGGREGATES = Map.of("TCMb", "cpu average", "TCMz", "cpu maximum");
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
        if (component(key) == null || AGGREGATES.containsKey(key)) {
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
        List<Point> out = new ArrayList<>(sensors.size() + AGGREGATES.size());
        for (String key : sensors) {
            Double c = s.number(key);
            if (real(c)) {
                out.add(HostMetrics.temperature("smc_" + key, component(key) + " " + key, c));
            }
        }
        for (String key : new java.util.TreeSet<>(AGGREGATES.keySet())) {
            Double c = s.keyInfo(key) == null ? null : s.number(key);
            if (real(c)) {
                out.add(HostMetrics.temperature("smc_" + key, AGGREGATES.get(key), c));
            }
        }
        return out;
    }

    /** Whether a reading is a die's temperature: not a gated cluster's fixed value, not a failed sensor. */
    static boolean real(Double celsius) {
        return celsius != null && celsius >= MIN_CELSIUS && celsius <= MAX_CELSIUS;
    }

    /** Closes the shared AppleSMC connection (the daemon closes its samplers on every reload). */
    @Override
    public void close() {
        Smc.closeIfOpened(smc);
    }
}
