package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.AttrValues.PsiWindow;
import io.tailwatch.metrics.AttrValues;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Memory pressure from PSI (/proc/pressure/memory). The level uses the 10-second averages:
 * critical (2) when "full" is at least {@value #CRITICAL_FULL_PERCENT} % (every runnable task
 * stalled on memory that share of the time), warning (1) when "some" is at least
 * {@value #WARNING_SOME_PERCENT} % or "full" at least {@value #WARNING_FULL_PERCENT} %, else
 * normal (0). The total stall times (microseconds since boot) are counters in seconds. A kernel
 * without PSI (or booted with psi=0) has no such file: nothing is exported.
 */
public final class PressureSampler implements Sampler {
    public static final double CRITICAL_FULL_PERCENT = 10.0;
    public static final double WARNING_SOME_PERCENT = 10.0;
    public static final double WARNING_FULL_PERCENT = 2.0;

    private final Path file;

    public PressureSampler(Path procfs) {
        this.file = procfs.resolve("pressure").resolve("memory");
    }

    @Override
    public String name() {
        return "pressure";
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        Map<String, Map<String, Double>> psi = parse(file, ProcFiles.read(file));
        List<Point> out = new ArrayList<>();
        export(psi, HostMetrics.PRESSURE_STALL, HostMetrics.MEMORY_PRESSURE_STALL_TIME, List.of(PsiKind.values()), out);
        Map<String, Double> some = psi.get(PsiKind.SOME.value());
        if (some == null || !some.containsKey(PsiWindow.AVG10.value())) {
            throw new IOException(file + ": no 'some avg10=' line");
        }
        Map<String, Double> full = psi.getOrDefault(PsiKind.FULL.value(), Map.of());
        out.add(Point.of(HostMetrics.PRESSURE_LEVEL, level(some.get(PsiWindow.AVG10.value()), full.getOrDefault(PsiWindow.AVG10.value(), 0.0))));
        return out;
    }

    /** The documented 0/1/2 mapping from PSI 10-second percentages. */
    public static int level(double someAvg10, double fullAvg10) {
        if (fullAvg10 >= CRITICAL_FULL_PERCENT) {
            return 2;
        }
        if (someAvg10 >= WARNING_SOME_PERCENT || fullAvg10 >= WARNING_FULL_PERCENT) {
            return 1;
        }
        return 0;
    }

    /** The key of the stall time since boot, in microseconds, in what {@link #parse} returns. */
    static final String TOTAL = "total";

    private static double total(Path file, int index, String v) throws IOException {
        try {
            long us = Long.parseLong(v);
            if (us < 0) {
                throw new NumberFormatException();
            }
            return us;
        } catch (NumberFormatException e) {
            throw new IOException(file + " line " + (index + 1) + ": total is not a count of microseconds: '" + ProcFiles.clip(v) + "'");
        }
    }

    /** The averages (as ratios) and stall times of each kind in {@code kinds} that {@code psi} has. */
    static void export(Map<String, Map<String, Double>> psi, io.tailwatch.metrics.MetricDef stall,
                       io.tailwatch.metrics.MetricDef stallTime, List<PsiKind> kinds, List<Point> out) {
        for (PsiKind kind : kinds) {
            Map<String, Double> w = psi.get(kind.value());
            if (w == null) {
                continue;
            }
            for (PsiWindow window : PsiWindow.values()) {
                Double v = w.get(window.value());
                if (v != null) {
                    out.add(Point.of(stall, v / 100.0, kind, window));
                }
            }
        }
        totals(psi, stallTime, kinds, out);
    }

    /** The stall-time counters (seconds) of each kind present in {@code psi} and allowed. */
    static void totals(Map<String, Map<String, Double>> psi, io.tailwatch.metrics.MetricDef metric, List<PsiKind> kinds,
                       List<Point> out) {
        for (PsiKind kind : kinds) {
            Map<String, Double> w = psi.get(kind.value());
            if (w != null && w.containsKey(TOTAL)) {
                out.add(Point.of(metric, w.get(TOTAL) / 1e6, kind));
            }
        }
    }

    static Map<String, Map<String, Double>> parse(Path file, String text) throws IOException {
        Map<String, Map<String, Double>> out = new HashMap<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (AttrValues.find(PsiKind.class, parts[0]) == null) {
                throw new IOException(file + " line " + (i + 1) + ": expected 'some' or 'full', got '" + ProcFiles.clip(line) + "'");
            }
            Map<String, Double> values = new HashMap<>();
            for (int j = 1; j < parts.length; j++) {
                int eq = parts[j].indexOf('=');
                if (eq <= 0) {
                    throw new IOException(file + " line " + (i + 1) + ": expected key=value, got '" + ProcFiles.clip(parts[j]) + "'");
                }
                String key = parts[j].substring(0, eq);
                if (key.equals(TOTAL)) {
                    values.put(TOTAL, total(file, i, parts[j].substring(eq + 1)));
                    continue;
                }
                try {
                    double v = Double.parseDouble(parts[j].substring(eq + 1));
                    if (v < 0 || v > 100 || Double.isNaN(v)) {
                        throw new IOException(file + " line " + (i + 1) + ": " + key + " out of range 0-100: " + v);
                    }
                    values.put(key, v);
                } catch (NumberFormatException e) {
                    throw new IOException(file + " line " + (i + 1) + ": not a number in '" + ProcFiles.clip(parts[j]) + "'");
                }
            }
            out.put(parts[0], values);
        }
        return out;
    }
}
