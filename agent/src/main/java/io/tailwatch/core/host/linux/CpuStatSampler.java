package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.CpuUtilization;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code system.cpu.utilization} from the aggregate "cpu" line of /proc/stat (proc(5)): user, nice,
 * system, idle, iowait, irq, softirq, steal, guest, guest_nice, in USER_HZ ticks. guest and
 * guest_nice are already inside user and nice (the kernel adds guest time to both), so they are not
 * added again; irq + softirq is semconv's "interrupt". The first sample is the baseline and exports
 * nothing; a kernel without some of the later columns (steal since 2.6.11) simply has fewer modes.
 */
public final class CpuStatSampler implements Sampler {
    /** The semconv mode of each /proc/stat column we use, in column order. */
    static final CpuMode[] MODES = {CpuMode.USER, CpuMode.NICE, CpuMode.SYSTEM, CpuMode.IDLE, CpuMode.IOWAIT,
            CpuMode.INTERRUPT, CpuMode.STEAL};

    private final Path stat;
    private long[][] previous;

    public CpuStatSampler(Path procfs) {
        this.stat = procfs.resolve("stat");
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        long[] now = parse(ProcFiles.read(stat), stat.toString());
        long[][] current = {now};
        long[][] before = previous;
        previous = current;
        if (before == null) {
            return List.of();
        }
        Map<CpuMode, Double> u = CpuUtilization.of(before, current, MODES, 0, 1, false);
        List<Point> out = new ArrayList<>(u.size());
        u.forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_UTILIZATION, v, mode)));
        return out;
    }

    /** The aggregate line's ticks in {@link #MODES} order (irq and softirq summed; missing columns 0). */
    static long[] parse(String text, String file) throws IOException {
        String[] lines = text.split("\n", 2);
        String first = lines.length == 0 ? "" : lines[0].strip();
        String[] f = first.split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu")) {
            throw new IOException(file + " line 1: expected 'cpu user nice system idle ...', got '" + ProcFiles.clip(first) + "'");
        }
        long[] col = new long[8];
        for (int i = 0; i < col.length && i + 1 < f.length; i++) {
            try {
                col[i] = Long.parseUnsignedLong(f[i + 1]);
            } catch (NumberFormatException e) {
                throw new IOException(file + " line 1: column " + (i + 2) + " is not a number: '" + ProcFiles.clip(f[i + 1]) + "'");
            }
        }
        // columns: 0 user, 1 nice, 2 system, 3 idle, 4 iowait, 5 irq, 6 softirq, 7 steal
        return new long[] {col[0], col[1], col[2], col[3], col[4], col[5] + col[6], col[7]};
    }
}
