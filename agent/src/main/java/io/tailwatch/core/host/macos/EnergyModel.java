package io.tailwatch.core.host.macos;

import io.tailwatch.metrics.AttrValues.RailStatus;

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

    /** A die prefix: {@code DIE_1_} (Ultra chips) or {@code DIE0 } (newer chips and macOS versions). */
    private static final Pattern DIE_PREFIX = Pattern.compile("^DIE_?\\d+[_ ]");
    /**
     * A rail that cannot be idle and shows no energy for this long in a row is frozen, not idle (macOS 27
     * stops the CPU and, on some chips, DRAM channels: consecutive samples carry identical raw values).
     * The shortest window the rule accepts is 40 ms, but the counters are published in batches (an M5
     * Max on macOS 27 was measured publishing 2.03 to 2.23 s apart, an M1 Ultra's channels 0.6 s stale
     * between publications), so a zero over less than this is "no batch yet", never a verdict.
     */
    public static final double FROZEN_MIN_SECONDS = 3.0;
    /**
     * Rails that always draw while the agent runs: the CPU runs this sampler, DRAM refreshes (about
     * 0.3 W alone), DCS is the memory fabric behind it. GPU and ANE may be truly idle, so a zero there is 0 W.
     */
    static final java.util.Set<String> NEVER_IDLE = java.util.Set.of("cpu", "dram", "dcs");

    private final Map<String, RailStatus> states = new TreeMap<>();
    /** Seconds in a row each never-idle rail has shown no energy (any of its channels, on an Ultra). */
    private final Map<String, Double> stillSeconds = new HashMap<>();

    private final Map<String, BatchRate> rates = new HashMap<>();

    private final Map<String, Double> joules = new TreeMap<>();
    private long dropped;
    private long unknownUnits;

    /**
     * What one delta gave: watts per rail for this interval, joules per rail since start, drop
     * counts, and how many rails this delta had at all (0 = the known channels are gone).
     */
    public record Reading(Map<String, Double> watts, Map<String, Double> joules, long droppedTotal,
                          long unknownUnitsTotal, int railsInDelta, Map<String, RailStatus> states) {
        /** The joules of the rails that are not frozen. */
        public Map<String, Double> liveJoules() {
            Map<String, Double> m = new TreeMap<>(joules);
            states.forEach((rail, st) -> {
                if (st == RailStatus.FROZEN) {
                    m.remove(rail);
                }
            });
            return m;
        }
    }

    /** A channel name without its die prefix. */
    static String withoutDie(String channelName) {
        return DIE_PREFIX.matcher(channelName.strip()).replaceFirst("");
    }

    /** The hw.type of an energy channel, or null when the channel is not a whole-rail reading. */
    public static String rail(String channelName) {
        String n = withoutDie(channelName);
        if (n.contains("DTL")) {
            // Per-core DTL telemetry under the CPU Energy roll-up (300 of an M5 Max's 364 channels): the
            // roll-up already holds it, so it is never a rail, whatever its name ends with.
            return null;
        }
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
            if (inGroup(c) && !withoutDie(c.name()).equals("GPU") && "gpu".equals(rail(c.name()))) {
                namedGpuEnergy = true;
            }
        }
        Map<String, Double> interval = new HashMap<>();
        /** Rails with a channel (one die's, say) whose counter did not move. */
        java.util.Set<String> stillChannel = new java.util.HashSet<>();
        for (IOReportChannel c : channels) {
            if (!inGroup(c)) {
                continue;
            }
            String rail = rail(c.name());
            if (rail == null) {
                continue;
            }
            // Some macOS versions expose both "GPU" and "GPU Energy"; count the rail once.
            if (namedGpuEnergy && withoutDie(c.name()).equals("GPU")) {
                continue;
            }
            double perUnit = joulesPerUnit(c.unit());
            if (Double.isNaN(perUnit)) {
                unknownUnits++;
                continue;
            }
            if (!c.hasValue()) {
                // IOReport fills a channel that has nothing to report with INT64_MIN: no reading, not a reset.
                continue;
            }
            if (c.value() < 0) {
                dropped++;
                interval.put(rail, Double.NaN);
                continue;
            }
            if (c.value() == 0) {
                stillChannel.add(rail);
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
            String rail = e.getKey();
            if (NEVER_IDLE.contains(rail)) {
                BatchRate rate = rates.computeIfAbsent(rail, r -> new BatchRate());
                if (stillChannel.contains(rail)) {
                    // No batch yet (never 0 W); frozen once it has been still long enough. On an Ultra one still
                    // die leaves the rail out too: the other die's part alone is not the rail.
                    double still = stillSeconds.merge(rail, timed ? seconds : 0, Double::sum);
                    if (still >= FROZEN_MIN_SECONDS) {
                        states.put(rail, RailStatus.FROZEN);
                        rate.frozen();
                        continue;
                    }
                    double held = rate.still(timed ? seconds : 0);
                    if (!Double.isNaN(held) && states.get(rail) == RailStatus.MEASURED) {
                        watts.put(rail, held);
                    }
                    continue;
                }
                stillSeconds.remove(rail);
                states.put(rail, RailStatus.MEASURED);
                if (putRate(watts, rail, timed ? rate.moved(j, seconds) : Double.NaN)) {
                    joules.merge(rail, j, Double::sum);
                }
                continue;
            }
            states.put(rail, RailStatus.MEASURED);
            if (putRate(watts, rail, timed ? j / seconds : Double.NaN)) {
                joules.merge(rail, j, Double::sum);
            }
        }
        Map<String, RailStatus> seen = new TreeMap<>();
        for (String rail : interval.keySet()) {
            RailStatus st = states.get(rail);
            if (st != null) {
                seen.put(rail, st);
            }
        }
        return new Reading(watts, new TreeMap<>(joules), dropped, unknownUnits, interval.size(), seen);
    }

    /**
     * Puts a rate that is known and possible. An impossible one is dropped and counted, and false says its
     * energy is not to be counted either; an unknown rate (no interval, a catch-up) keeps the energy.
     */
    private boolean putRate(Map<String, Double> watts, String rail, double w) {
        if (Double.isNaN(w)) {
            return true;
        }
        if (w > MAX_RAIL_WATTS) {
            dropped++;
            return false;
        }
        watts.put(rail, w);
        return true;
    }

    private static boolean inGroup(IOReportChannel c) {
        return c.group().isEmpty() || c.group().equals(GROUP);
    }
}
