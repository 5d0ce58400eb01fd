package io.tailwatch.host.linux;

import io.tailwatch.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Hottest thermal zone from /sys/class/thermal/thermal_zone*\/temp (millidegrees Celsius). Zones
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
        Double hottest = null;
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
                    hottest = hottest == null ? c : Math.max(hottest, c);
                } catch (IOException e) {
                    bad++;
                }
            }
        }
        if (hottest == null) {
            if (zones > 0 && bad == zones) {
                throw new IOException("no readable thermal zone under " + dir + " (" + zones + " zones)");
            }
            return List.of();
        }
        return List.of(Point.of(HostMetrics.THERMAL_TEMPERATURE, hottest));
    }
}
