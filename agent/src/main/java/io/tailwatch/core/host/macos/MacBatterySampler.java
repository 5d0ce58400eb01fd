package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A laptop's battery and power adapter from the AppleSmartBattery IORegistry entry: charge
 * (CurrentCapacity / MaxCapacity), power into the battery (Voltage mV x Amperage mA, negative while
 * discharging) and the connected adapter's rated watts. Absent on a Mac without a battery; each figure
 * whose properties are missing is left out.
 */
public final class MacBatterySampler implements NativeSampler {
    static final String VOLTAGE = "Voltage";
    static final String AMPERAGE = "Amperage";
    static final String CURRENT_CAPACITY = "CurrentCapacity";
    static final String MAX_CAPACITY = "MaxCapacity";
    static final String EXTERNAL_CONNECTED = "ExternalConnected";
    /** AdapterDetails' Watts, flattened. */
    static final String ADAPTER_WATTS = "AdapterWatts";
    private final Lazy<BatterySource> source;

    public MacBatterySampler(Lazy<BatterySource> source) {
        this.source = source;
    }

    @Override
    public String name() {
        return "battery";
    }

    @Override
    public String probeId() {
        return MacProbes.BATTERY;
    }

    @Override
    public List<Point> sample() throws IOException {
        Map<String, Long> p = source.get().read();
        return p == null ? List.of() : points(p);
    }

    static List<Point> points(Map<String, Long> p) {
        List<Point> out = new ArrayList<>(3);
        Long cur = p.get(CURRENT_CAPACITY);
        Long max = p.get(MAX_CAPACITY);
        if (cur != null && max != null && max > 0 && cur >= 0 && cur <= max) {
            out.add(HostMetrics.battery(HostMetrics.BATTERY_CHARGE, (double) cur / max));
        }
        Long mv = p.get(VOLTAGE);
        Long ma = p.get(AMPERAGE);
        if (mv != null && ma != null && mv > 0) {
            out.add(HostMetrics.battery(HostMetrics.BATTERY_POWER, mv * (double) ma / 1e6));
        }
        Long watts = p.get(ADAPTER_WATTS);
        if (Long.valueOf(1).equals(p.get(EXTERNAL_CONNECTED)) && watts != null && watts > 0) {
            out.add(HostMetrics.adapterLimit(watts));
        }
        return out;
    }
}
