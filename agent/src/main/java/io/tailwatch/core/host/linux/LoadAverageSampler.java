package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.LoadWindow;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The load average from {@code /proc/loadavg} (proc(5): "0.20 0.18 0.12 1/80 11206", the 1-, 5- and
 * 15-minute averages of runnable plus uninterruptible tasks, then running/total and the last pid). A
 * procfs without the file exports nothing.
 */
public final class LoadAverageSampler implements Sampler {
    private final Path file;

    public LoadAverageSampler(Path procfs) {
        this.file = procfs.resolve("loadavg");
    }

    @Override
    public String name() {
        return "load";
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        double[] l = parse(file, ProcFiles.read(file));
        return List.of(Point.of(HostMetrics.LOAD_AVERAGE, l[0], LoadWindow.AVG1),
                Point.of(HostMetrics.LOAD_AVERAGE, l[1], LoadWindow.AVG5),
                Point.of(HostMetrics.LOAD_AVERAGE, l[2], LoadWindow.AVG15));
    }

    /** The three averages; an error naming the file for anything else. */
    static double[] parse(Path file, String text) throws IOException {
        String line = text.strip();
        String[] f = line.split("\\s+");
        if (f.length < 3) {
            throw new IOException(file + ": expected three load averages, got '" + ProcFiles.clip(line) + "'");
        }
        double[] out = new double[3];
        for (int i = 0; i < 3; i++) {
            try {
                out[i] = Double.parseDouble(f[i]);
            } catch (NumberFormatException e) {
                out[i] = Double.NaN;
            }
            if (!(out[i] >= 0) || Double.isInfinite(out[i])) {
                throw new IOException(file + ": field " + (i + 1) + " is not a load average: '" + ProcFiles.clip(f[i]) + "'");
            }
        }
        return out;
    }
}
