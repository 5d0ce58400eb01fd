package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.PowerSources;
import io.tailwatch.core.host.macos.MacToolText;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which source each power figure came from (IOReport rails, SMC PSTR, the battery; RAPL on Linux), and
 * on macOS the battery and whole-machine power beside {@code ioreg -rn AppleSmartBattery}, which needs
 * no sudo: the battery's power against ioreg's Voltage x Amperage, and, while the Mac runs on its
 * battery alone, the SMC's PSTR against the power the battery gives. Fans are range-checked (no tool
 * without sudo prints them): speed within 0 ... the fan's own maximum.
 */
public final class PowerSourceChecks {
    public static final List<String> IOREG_BATTERY = List.of("ioreg", "-rn", "AppleSmartBattery");
    public static final List<List<String>> TOOLS = List.of(IOREG_BATTERY);
    static final String TOOL = "ioreg -rn AppleSmartBattery";
    /** The battery's current moves between the sample and ioreg (a burst of work, the charger). */
    static final double BATTERY_RELATIVE = 0.3;
    static final double BATTERY_FLOOR_WATTS = 2.0;
    /** PSTR counts the whole machine, the battery what it gives: they differ by conversion losses and timing. */
    static final double SYSTEM_RELATIVE = 0.5;
    static final double SYSTEM_FLOOR_WATTS = 3.0;

    private PowerSourceChecks() {
    }

    /** One line per power figure the snapshot has, naming its source; a frozen rail as unavailable, with why. */
    public static List<Check> sources(HostSnapshot s, boolean mac) {
        List<Check> out = new ArrayList<>();
        for (Map.Entry<String, String> e : PowerSources.of(s, mac).entrySet()) {
            boolean frozen = e.getKey().startsWith("rail ");
            Double value = switch (e.getKey()) {
                case "system" -> s.value(HostMetrics.HOST_POWER);
                case "battery" -> s.value(HostMetrics.BATTERY_POWER);
                default -> null;
            };
            String signal = switch (e.getKey()) {
                case "system" -> "hw.host.power";
                case "battery" -> "tailwatch.battery.power";
                case "rails" -> "hw.power";
                default -> "hw.power{" + e.getKey().substring("rail ".length()) + "}";
            };
            out.add(new Check("power source: " + signal, frozen ? "absent" : value == null ? "-" : Checks.format(value, "W"),
                    e.getValue(), "-", "-", frozen ? Check.Verdict.UNAVAILABLE : Check.Verdict.CHECKED,
                    frozen ? "the rail's energy counter stopped; its power is left out, not 0 W" : "source of the figure"));
        }
        return out;
    }

    public static List<Check> checks(HostSnapshot s, Map<List<String>, String> outputs, Map<List<String>, String> errors) {
        List<Check> out = new ArrayList<>(sources(s, true));
        Double battery = s.value(HostMetrics.BATTERY_POWER);
        Double system = s.value(HostMetrics.HOST_POWER);
        String text = outputs.get(IOREG_BATTERY);
        if (text == null) {
            out.add(Checks.toolUnavailable("tailwatch.battery.power", battery, TOOL, errors.get(IOREG_BATTERY), "W"));
        } else {
            Map<String, Long> p = MacToolText.ioregBattery(text);
            Long mv = p.get("Voltage");
            Long ma = p.get("Amperage");
            Double tool = mv == null || ma == null ? null : mv * (double) ma / 1e6;
            out.add(Checks.compareRelative("tailwatch.battery.power", battery, TOOL + " (Voltage x Amperage)", tool,
                    BATTERY_RELATIVE, BATTERY_FLOOR_WATTS, "W"));
            if (tool != null && tool < 0 && Long.valueOf(0).equals(p.get("ExternalConnected"))) {
                out.add(Checks.compareRelative("hw.host.power", system, TOOL + " (on battery: -Voltage x Amperage)", -tool,
                        SYSTEM_RELATIVE, SYSTEM_FLOOR_WATTS, "W"));
            } else {
                out.add(Checks.inRange("hw.host.power", system, 0, NativeInvariants.MAX_WATTS, "W",
                        "compared with the battery only while the Mac runs on it; range checked"));
            }
        }
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.FAN_SPEED) {
                String id = p.attributes().get(AttrKeys.HW_ID);
                Double max = null;
                for (Point q : s.points()) {
                    if (q.metric() == HostMetrics.FAN_SPEED_LIMIT && java.util.Objects.equals(id, q.attributes().get(AttrKeys.HW_ID))) {
                        max = q.value();
                    }
                }
                out.add(Checks.inRange(id == null ? "hw.fan.speed" : "hw.fan.speed{" + id + "}", p.value(), 0, max == null ? 100_001 : max * 1.1 + 1, "rpm",
                        "no tool prints fans without sudo; at most the fan's F<n>Mx (+10 %)"));
            }
        }
        return out;
    }
}
