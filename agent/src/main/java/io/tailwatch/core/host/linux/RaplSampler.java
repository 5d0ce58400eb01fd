package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Power from RAPL powercap zones (/sys/class/powercap/intel-rapl:N[:M]/energy_uj). Each sample
 * takes the energy delta against the previous one (a counter that went backwards wrapped at
 * max_energy_range_uj) and divides by the measured interval. The first sample establishes the
 * baseline and exports energy only. Zones whose counter is not readable (root-only on recent
 * kernels) are absent.
 */
public final class RaplSampler implements Sampler {
    /** Above this a reading is impossible for one machine and is dropped. */
    static final double MAX_WATTS = 5_000;

    private final Path dir;
    private final LongSupplier nanoTime;
    private final TextReader reader;
    private final Map<String, Long> previous = new HashMap<>();
    private final Map<String, Double> joules = new TreeMap<>();
    private long previousNanos;

    public RaplSampler(Path sysfs) {
        this(sysfs, System::nanoTime);
    }

    RaplSampler(Path sysfs, LongSupplier nanoTime) {
        this(sysfs, nanoTime, ProcFiles::read);
    }

    /**
     * Reads a sysfs file. Tests supply one that refuses the energy counter the way a kernel does for
     * a non-root reader, which a test running as root cannot reproduce with file modes.
     */
    @FunctionalInterface
    interface TextReader {
        String read(Path file) throws IOException;
    }

    RaplSampler(Path sysfs, LongSupplier nanoTime, TextReader reader) {
        this.dir = sysfs.resolve("class").resolve("powercap");
        this.nanoTime = nanoTime;
        this.reader = reader;
    }

    private long readLong(Path file) throws IOException {
        String s = reader.read(file).strip();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException(file + ": expected an integer, got '" + ProcFiles.clip(s) + "'");
        }
    }

    @Override
    public String name() {
        return "power";
    }

    static String type(String zoneName) {
        String n = zoneName.toLowerCase(Locale.ROOT);
        if (n.startsWith("package")) {
            return "package";
        }
        return switch (n) {
            case "core", "uncore", "dram", "psys" -> n;
            default -> null;
        };
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        long now = nanoTime.getAsLong();
        Map<String, Long> current = new HashMap<>();
        Map<String, Long> range = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "intel-rapl:*")) {
            for (Path zone : ds) {
                Path energy = zone.resolve("energy_uj");
                if (!Files.isReadable(energy)) {
                    continue;
                }
                String type;
                long e;
                long max;
                try {
                    type = type(reader.read(zone.resolve("name")).strip());
                    e = readLong(energy);
                    max = Files.exists(zone.resolve("max_energy_range_uj"))
                            ? readLong(zone.resolve("max_energy_range_uj")) : 0;
                } catch (java.nio.file.AccessDeniedException ex) {
                    continue;
                }
                if (type == null) {
                    continue;
                }
                String id = zone.getFileName().toString();
                current.put(id, e);
                range.put(id, max);
                types.put(id, type);
            }
        }
        if (current.isEmpty()) {
            return List.of();
        }
        double seconds = (now - previousNanos) / 1e9;
        boolean havePrevious = !previous.isEmpty() && seconds > 0;
        Map<String, Double> watts = new TreeMap<>();
        for (Map.Entry<String, Long> z : current.entrySet()) {
            Long before = previous.get(z.getKey());
            if (before == null) {
                joules.putIfAbsent(types.get(z.getKey()), 0.0);
                continue;
            }
            long delta = z.getValue() - before;
            if (delta < 0) {
                long max = range.get(z.getKey());
                if (max <= 0) {
                    continue;
                }
                delta += max;
            }
            double j = delta / 1e6;
            String type = types.get(z.getKey());
            if (havePrevious) {
                double w = j / seconds;
                if (w > MAX_WATTS) {
                    continue;
                }
                watts.merge(type, w, Double::sum);
            }
            joules.merge(type, j, Double::sum);
        }
        previous.clear();
        previous.putAll(current);
        previousNanos = now;
        List<Point> out = new ArrayList<>();
        watts.forEach((t, w) -> out.add(HostMetrics.power(t, w)));
        joules.forEach((t, j) -> out.add(HostMetrics.energy(t, j)));
        return out;
    }
}
