package io.tailwatch.daemon.alerts;

import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.rules.Signals;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an alert carries from the moment it fired: swap and its 10-minute change, memory and thermal
 * pressure, the engine footprint, and the probe-window figures of the alert's engine/model/scenario.
 * Unknown figures are left out.
 */
public final class Evidence {
    private Evidence() {
    }

    public static Map<String, Object> gather(Signals s, Map<String, String> labels) {
        Map<String, Object> m = new LinkedHashMap<>();
        put(m, "swap_used_bytes", s.host().swapUsedBytes());
        put(m, "swap_change_10m_bytes", s.host().swapChange10mBytes());
        put(m, "memory_pressure_level", s.host().memoryPressureLevel());
        put(m, "memory_available_bytes", s.host().memoryAvailableBytes());
        put(m, "thermal_pressure_level", s.host().thermalPressureLevel());
        put(m, "cpu_speed_limit", s.host().cpuSpeedLimit());
        String engine = labels.get(Rules.ENGINE);
        Map<String, Object> footprints = new LinkedHashMap<>();
        Map<String, Object> rss = new LinkedHashMap<>();
        for (Signals.Engine e : s.engines()) {
            if (engine == null || engine.equals(e.engine())) {
                if (e.footprintBytes() != null) {
                    footprints.put(e.engine(), e.footprintBytes());
                }
                if (e.rssBytes() != null) {
                    rss.put(e.engine(), e.rssBytes());
                }
            }
        }
        if (!footprints.isEmpty()) {
            m.put("engine_footprint_bytes", footprints);
        }
        if (!rss.isEmpty()) {
            m.put("engine_rss_bytes", rss);
        }
        List<Signals.Window> windows = new ArrayList<>();
        for (Signals.Window w : s.windows()) {
            if ((engine == null || engine.equals(w.engine()))
                    && matches(labels.get(Rules.MODEL), w.model()) && matches(labels.get(Rules.SCENARIO), w.scenario())) {
                windows.add(w);
            }
        }
        if (!windows.isEmpty()) {
            m.put("windows", windows);
        }
        return m;
    }

    private static boolean matches(String want, String got) {
        return want == null || want.equals(got);
    }

    private static void put(Map<String, Object> m, String k, Double v) {
        if (v != null) {
            m.put(k, v);
        }
    }
}
