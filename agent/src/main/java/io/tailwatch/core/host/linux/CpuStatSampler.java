package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.CpuUtilization;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrKeys;
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
 * With {@code perCpu} it also exports {@code system.cpu.time} of each {@code cpuN} line, in seconds
 * (USER_HZ is 100 on Linux, fixed in the kernel's ABI whatever CONFIG_HZ is), for at most
 * {@value #MAX_CPUS} CPUs (7 series each).
 */
public final class CpuStatSampler implements Sampler {
    /** The semconv mode of each /proc/stat column we use, in column order. */
    static final CpuMode[] MODES = {CpuMode.USER, CpuMode.NICE, CpuMode.SYSTEM, CpuMode.IDLE, CpuMode.IOWAIT,
            CpuMode.INTERRUPT, CpuMode.STEAL};

    /** How many /proc/stat columns each of {@link #MODES} needs (interrupt is irq + softirq, steal the 8th). */
    private static final int[] COLUMNS_NEEDED = {1, 2, 3, 4, 5, 7, 8};
    /** 64 CPUs x 7 modes = 448 series, under the 500 a metric may hold. */
    static final int MAX_CPUS = 64;
    /** USER_HZ: the unit of /proc/stat's columns (proc(5); sysconf(_SC_CLK_TCK) is 100 on Linux). */
    static final double USER_HZ = 100.0;

    private final Path stat;
    private final boolean perCpu;
    private long[][] previous;

    public CpuStatSampler(Path procfs) {
        this(procfs, false);
    }

    public CpuStatSampler(Path procfs, boolean perCpu) {
        this.stat = procfs.resolve("stat");
        this.perCpu = perCpu;
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        String text = ProcFiles.read(stat);
        long[] now = parse(text, stat.toString());
        long[][] current = {now};
        long[][] before = previous;
        previous = current;
        List<Point> out = new ArrayList<>();
        if (perCpu) {
            perCpu(text, stat.toString(), out);
        }
        if (before == null) {
            return out;
        }
        Map<CpuMode, Double> u = CpuUtilization.of(before, current, MODES, 0, 1, false);
        u.forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_UTILIZATION, v, mode)));
        return out;
    }

    /** system.cpu.time of each "cpuN" line (at most {@link #MAX_CPUS}), seconds per mode. */
    static void perCpu(String text, String file, List<Point> out) throws IOException {
        String[] lines = text.split("\n");
        int cpus = 0;
        for (int i = 1; i < lines.length && cpus < MAX_CPUS; i++) {
            String line = lines[i];
            if (!line.startsWith("cpu") || line.length() < 4 || !Character.isDigit(line.charAt(3))) {
                continue;
            }
            String id = line.substring(3, line.indexOf(' ') < 0 ? line.length() : line.indexOf(' '));
            String[] f = line.strip().split("\\s+");
            long[] ticks = columns(f, file, i + 1);
            for (int m = 0; m < MODES.length; m++) {
                if (f.length - 1 < COLUMNS_NEEDED[m]) {
                    continue; // an older kernel without this column: absent, not 0
                }
                out.add(Point.of(HostMetrics.CPU_TIME, ticks[m] / USER_HZ, MODES[m], AttrKeys.CPU_LOGICAL_NUMBER, id));
            }
            cpus++;
        }
    }

    /** The aggregate line's ticks in {@link #MODES} order (irq and softirq summed; missing columns 0). */
    static long[] parse(String text, String file) throws IOException {
        String[] lines = text.split("\n", 2);
        String first = lines.length == 0 ? "" : lines[0].strip();
        String[] f = first.split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu")) {
            throw new IOException(file + " line 1: expected 'cpu user nice system idle ...', got '" + ProcFiles.clip(first) + "'");
        }
        return columns(f, file, 1);
    }

    /** The fields of one cpu line (name first) in {@link #MODES} order. */
    private static long[] columns(String[] f, String file, int lineNumber) throws IOException {
        if (f.length < 5) {
            throw new IOException(file + " line " + lineNumber + ": expected 'cpuN user nice system idle ...', got '"
                    + ProcFiles.clip(String.join(" ", f)) + "'");
        }
        long[] col = new long[8];
        for (int i = 0; i < col.length && i + 1 < f.length; i++) {
            try {
                col[i] = Long.parseUnsignedLong(f[i + 1]);
            } catch (NumberFormatException e) {
                throw new IOException(file + " line " + lineNumber + ": column " + (i + 2) + " is not a number: '" + ProcFiles.clip(f[i + 1]) + "'");
            }
        }
        // columns: 0 user, 1 nice, 2 system, 3 idle, 4 iowait, 5 irq, 6 softirq, 7 steal
        return new long[] {col[0], col[1], col[2], col[3], col[4], col[5] + col[6], col[7]};
    }
}
