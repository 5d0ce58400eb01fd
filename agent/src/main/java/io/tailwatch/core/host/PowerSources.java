package io.tailwatch.core.host;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where each power figure of a snapshot came from, for the status and {@code doctor}: the per-rail
 * figures (IOReport Energy Model on macOS, RAPL on Linux), the whole machine (SMC PSTR) and the battery
 * (AppleSmartBattery). Only figures the snapshot has are named; a frozen rail is named with why.
 */
public final class PowerSources {
    public static final String IOREPORT = "IOReport Energy Model";
    public static final String RAPL = "RAPL (powercap energy_uj)";
    public static final String CLPC = "AppleCLPC energy accumulators";
    public static final String SMC_PSTR = "SMC key PSTR (AppleSMC user client)";
    public static final String BATTERY = "AppleSmartBattery Voltage x Amperage (IORegistry)";
    /** How a frozen power rail reads on the status, the page, doctor and the dashboards. */
    public static final String FROZEN_TEXT = "unavailable (macOS froze this counter)";

    private PowerSources() {
    }

    /**
     * Figure -> source: "rails" (with the rails named), "system", "battery"; frozen rails as
     * "rail &lt;name&gt;" -> {@link #FROZEN_TEXT}.
     */
    public static Map<String, String> of(HostSnapshot s, boolean mac) {
        Map<String, String> out = new LinkedHashMap<>();
        TreeSet<String> rails = new TreeSet<>();
        TreeSet<String> clpc = new TreeSet<>();
        TreeSet<String> frozen = new TreeSet<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER) {
                String rail = p.attributes().get(AttrKeys.HW_NAME);
                if (AttrValues.RailSource.CLPC.value().equals(p.attributes().get(AttrKeys.RAIL_SOURCE))) {
                    clpc.add(rail + " (" + p.attributes().get(AttrKeys.POWER_EXACTNESS) + ")");
                } else {
                    rails.add(rail);
                }
            } else if (p.metric() == HostMetrics.POWER_RAIL_STATE
                    && RailStatus.FROZEN.value().equals(p.attributes().get(AttrKeys.RAIL_STATUS))) {
                frozen.add(p.attributes().get(AttrKeys.HW_NAME));
            }
        }
        if (!rails.isEmpty()) {
            out.put("rails", (mac ? IOREPORT : RAPL) + ": " + String.join(", ", rails));
        }
        if (!clpc.isEmpty()) {
            out.put("rails (frozen in the Energy Model)", CLPC + ": " + String.join(", ", clpc));
        }
        for (String r : frozen) {
            out.put("rail " + r, FROZEN_TEXT);
        }
        if (s.value(HostMetrics.HOST_POWER) != null) {
            out.put("system", SMC_PSTR);
        }
        if (s.value(HostMetrics.BATTERY_POWER) != null) {
            out.put("battery", BATTERY);
        }
        return out;
    }
}
