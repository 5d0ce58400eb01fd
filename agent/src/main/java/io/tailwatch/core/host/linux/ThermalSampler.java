package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every thermal zone from /sys/class/thermal/thermal_zone*\/temp (millidegrees Celsius) as hw.temperature. Zones
 * that cannot be read or report junk (at or below 0 C, above 150 C) are skipped one by one; a host
 * without zones exports nothing.
 */
public final class ThermalSampler implements Sampler {
    private final Path dir;

    public ThermalSampler(Path sysfs) {
        this.dir = sysfs.resolve("class").resolve("thermal");
    }

    @Override
    public String name() {
        return "thermal";
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Point> out = new ArrayList<>();
        int zones = 0;
        int bad = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "thermal_zone*")) {
            for (Path zone : ds) {
                Path temp = zone.resolve("temp");
                if (!Files.exists(temp)) {
                    continue;
                }
                zones++;
                try {
                    double c = ProcFiles.readLong(temp) / 1000.0;
                    if (c <= 0 || c > 150) {
                        bad++;
                        continue;
                    }
                    String id = zone.getFileName().toString();
                    out.add(HostMetrics.temperature(id, zoneType(zone, id), c));
                } catch (IOException e) {
                    bad++;
                }
            }
        }
        if (out.isEmpty() && zones > 0 && bad == zones) {
            throw new IOException("no readable thermal zone under " + dir + " (" + zones + " zones)");
        }
        out.sort(Comparator.comparing((Point p) -> p.attributes().get(AttrKeys.HW_ID)));
        return out;
    }

    /** The zone's type (e.g. x86_pkg_temp, cpu-thermal), bounded and printable; the zone id when unreadable. */
    private static String zoneType(Path zone, String fallback) {
        try {
            String t = Files.readString(zone.resolve("type")).trim();
            if (!t.isEmpty() && t.length() <= 64 && t.chars().allMatch(ch -> ch > 32 && ch < 127)) {
                return t;
            }
        } catch (IOException | RuntimeException e) {
            // fall back to the zone id
        }
        return fallback;
    }
}
