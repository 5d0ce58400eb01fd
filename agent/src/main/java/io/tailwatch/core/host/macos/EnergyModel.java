package io.tailwatch.core.host.macos;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns deltas of the IOReport "Energy Model" group into power per rail and energy since start.
 * Channels are matched by name prefix/suffix (after a leading {@code DIE_n_}, so every die of an
 * Ultra chip adds into one rail); each channel's own unit label says how to scale it, and a rail
 * whose unit is unknown is skipped rather than guessed. Power divides by the measured interval. A
 * negative delta (a counter reset) or a rail above {@value #MAX_RAIL_WATTS} W is dropped and counted.
 */
public final class EnergyModel {
    public static final String GROUP = "Energy Model";
    /** No rail of any Mac draws this much; other tools have shown single readings of tens of kW. */
    public static final double MAX_RAIL_WATTS = 1000;

    private static final Pattern DIE_PREFIX = Pattern.compile("^DIE_\\d+_");

    private final Map<String, Double> joules = new TreeMap<>();
    private long dropped;
    private long unknownUnits;

    /**
     * What one delta gave: watts per rail for this interval, joules per rail since start, drop
     * counts, and how many rails this delta had at all (0 = the known channels are gone).
     */
    public record Reading(Map<String, Double> watts, Map<String, Double> joules, long droppedTotal,
                          long unknownUnitsTotal, int railsInDelta) {
    }

    /** The hw.type of an energy channel, or null when the channel is not a whole-rail reading. */
    public static String rail(String channelName) {
        String n = DIE_PREFIX.matcher(channelName.strip()).replaceFirst("");
        if (n.endsWith("CPU Energy")) {
            return "cpu";
        }
        if (n.startsWith("GPU SRAM")) {
            return "gpu_sram";
        }
        if (n.endsWith("GPU Energy") || n.equals("GPU")) {
            return "gpu";
        }
        if (n.startsWith("ANE")) {
            return "ane";
        }
        if (n.startsWith("DRAM")) {
            return "dram";
        }
        if (n.startsWith("DCS")) {
            return "dcs";
        }
        return null;
    }

    /** Joules per counted unit from a unit label (mJ, uJ, nJ), or NaN when the label is unknown. */
    public static double joulesPerUnit(String unit) {
        String u = unit == null ? "" : unit.strip();
        return switch (u.toLowerCase(Locale.ROOT)) {
            case "mj" -> 1e-3;
            case "uj", "\u00b5j", "\u03bcj" -> 1e-6;
            case "nj" -> 1e-9;
            default -> Double.NaN;
        };
    }

    public synchronized Reading apply(IOReportDelta delta) {
        List<IOReportChannel> channels = delta.channels();
        boolean namedGpuEnergy = false;
        for (IOReportChannel c : channels) {
            if (inGroup(c) && !DIE_PREFIX.matcher(c.name()).replaceFirst("").equals("GPU") && "gpu".equals(rail(c.name()))) {
                namedGpuEnergy = true;
            }
        }
        Map<String, Double> interval = new HashMap<>();
        for (IOReportChannel c : channels) {
            if (!inGroup(c)) {
                continue;
            }
            String rail = rail(c.name());
            if (rail == null) {
                continue;
            }
            // Some macOS versions expose both "GPU" and "GPU Energy"; count the rail once.
            if (namedGpuEnergy && DIE_PREFIX.matcher(c.name()).replaceFirst("").equals("GPU")) {
                continue;
            }
            double perUnit = joulesPerUnit(c.unit());
            if (Double.isNaN(perUnit)) {
                unknownUnits++;
                continue;
            }
            if (c.value() < 0) {
                dropped++;
                interval.put(rail, Double.NaN);
                continue;
            }
            interval.merge(rail, c.value() * perUnit, Double::sum);
        }
        double seconds = delta.seconds();
        boolean timed = seconds > 0 && Double.isFinite(seconds);
        Map<String, Double> watts = new TreeMap<>();
        for (Map.Entry<String, Double> e : interval.entrySet()) {
            double j = e.getValue();
            if (Double.isNaN(j)) {
                continue;
            }
            if (timed) {
                double w = j / seconds;
                if (w > MAX_RAIL_WATTS) {
                    dropped++;
                    continue;
                }
                watts.put(e.getKey(), w);
            }
            joules.merge(e.getKey(), j, Double::sum);
        }
        return new Reading(watts, new TreeMap<>(joules), dropped, unknownUnits, interval.size());
    }

    private static boolean inGroup(IOReportChannel c) {
        return c.group().isEmpty() || c.group().equals(GROUP);
    }
}
