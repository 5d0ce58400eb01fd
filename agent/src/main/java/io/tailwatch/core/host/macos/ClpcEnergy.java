package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.metrics.AttrValues.PowerExactness;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The AppleCLPC driver's energy accumulators as IOReport publishes them: group {@value #GROUP}, subgroup
 * {@value #SUBGROUP}, simple channels {@code CPU Energy}, {@code GPU Energy}, {@code ANE} (and {@code DRAM}
 * where the driver has it), each a cumulative count in its unit label's unit (nJ on every Mac seen). macOS 27
 * does not gate them as it gates the Energy Model. Only the rails CLPC stands in for are read (cpu, dram, ane;
 * the GPU's Energy Model rail still updates). On M5 Pro and M5 Max the driver accumulates each cluster's
 * energy itself (exact); on other chips it splits a total by its own estimate (estimated).
 */
public final class ClpcEnergy {
    public static final String GROUP = "CLPC";
    public static final String SUBGROUP = "Energy Counters";
    private static final Pattern EXACT_CHIPS = Pattern.compile("Apple M5 (Pro|Max)\\b.*");

    private final PowerExactness exactness;
    private final Map<String, BatchRate> rates = new HashMap<>();
    private final Map<String, Double> joules = new TreeMap<>();

    /** @param brand {@code machdep.cpu.brand_string}, or null when it cannot be read (then estimated) */
    public ClpcEnergy(String brand) {
        this.exactness = exactness(brand);
    }

    static PowerExactness exactness(String brand) {
        return brand != null && EXACT_CHIPS.matcher(brand.strip()).matches() ? PowerExactness.EXACT : PowerExactness.ESTIMATED;
    }

    public PowerExactness exactness() {
        return exactness;
    }

    /** The rail of a CLPC channel this source reads, or null. */
    public static String rail(String channelName) {
        String r = EnergyModel.rail(channelName);
        return r != null && RailChoice.CLPC_RAILS.contains(r) ? r : null;
    }

    /** Watts and joules since start by rail, for one delta. */
    public record Reading(Map<String, Double> watts, Map<String, Double> joules) {
    }

    /**
     * One delta. Channels with an unknown unit, IOReport's INT64_MIN fill or a negative delta are left out.
     * A rail that does not move is rated over its publication interval ({@link BatchRate}): CLPC counters
     * of the CPU and DRAM are published in batches too; a still ANE counter is an idle ANE, 0 W.
     */
    public synchronized Reading apply(IOReportDelta delta) {
        Map<String, Double> interval = new TreeMap<>();
        for (IOReportChannel c : delta.channels()) {
            String rail = c.group().isEmpty() || c.group().equals(GROUP) ? rail(c.name()) : null;
            double perUnit = EnergyModel.joulesPerUnit(c.unit());
            if (rail == null || Double.isNaN(perUnit) || !c.hasValue() || c.value() < 0) {
                continue;
            }
            interval.merge(rail, c.value() * perUnit, Double::sum);
        }
        double seconds = delta.seconds();
        boolean timed = seconds > 0 && Double.isFinite(seconds);
        Map<String, Double> watts = new TreeMap<>();
        interval.forEach((rail, j) -> {
            joules.merge(rail, j, Double::sum);
            if (!timed) {
                return;
            }
            double w;
            if ("ane".equals(rail)) {
                w = j / seconds;
            } else {
                BatchRate rate = rates.computeIfAbsent(rail, r -> new BatchRate());
                w = j > 0 ? rate.moved(j, seconds) : rate.still(seconds);
            }
            if (!Double.isNaN(w) && w <= EnergyModel.MAX_RAIL_WATTS) {
                watts.put(rail, w);
            }
        });
        return new Reading(watts, new TreeMap<>(joules));
    }

    /**
     * The self-check's test of a CLPC delta: every channel it would read has an energy unit, a value
     * (not INT64_MIN) and no negative delta, and a rail is there at all. Anything else means the driver's
     * channels are not laid out as this decoder reads them, and the source stays off.
     */
    public static void checkLayout(IOReportDelta delta) throws NativeProbe.WrongLayout {
        int rails = 0;
        for (IOReportChannel c : delta.channels()) {
            if (rail(c.name()) == null) {
                continue;
            }
            rails++;
            if (Double.isNaN(EnergyModel.joulesPerUnit(c.unit()))) {
                throw new NativeProbe.WrongLayout("CLPC channel " + c.name() + " has unit '" + c.unit() + "', not an energy unit");
            }
            if (!c.hasValue() || c.value() < 0) {
                throw new NativeProbe.WrongLayout("CLPC channel " + c.name() + " moved by " + c.value() + ", not a count of energy");
            }
        }
        if (rails == 0) {
            throw new NativeProbe.WrongLayout("no CPU, DRAM or ANE channel among " + delta.channels().size() + " CLPC channels");
        }
    }
}
