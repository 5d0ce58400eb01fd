package io.tailwatch.core.host;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues;
import io.tailwatch.metrics.AttrValues.PowerSource;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;

/**
 * The host's power over the last sample interval and which figure it is, for attributing energy to the
 * engines. The choice, in this order:
 * <ol>
 * <li>{@link PowerSource#RAILS}: the sum of the measured rails, while no rail of the snapshot is frozen
 * (a frozen Energy Model rail that AppleCLPC stands in for is not a gap):
 * RAPL {@code package} plus {@code dram} where the host has a package rail (Linux), else the Apple silicon
 * rails {@code cpu + gpu + ane + dram} that are present;</li>
 * <li>{@link PowerSource#SYSTEM}: one whole-host figure where the rails are frozen or absent: the
 * {@code hw.host.power} gauge (the SMC's PSTR on a Mac) when the snapshot has it, else the RAPL
 * {@code psys} (platform) rail;</li>
 * <li>null: power unknown on this host (no rails, or frozen rails and no system figure). Never 0.</li>
 * </ol>
 *
 * @param watts  average power over the snapshot's interval
 * @param source which figure {@code watts} is
 */
public record HostPower(double watts, PowerSource source) {
    private static final String[] APPLE_RAILS = {"cpu", "gpu", "ane", "dram"};

    /** The host power of {@code s}, or null when this host's power is unknown. */
    public static HostPower of(HostSnapshot s) {
        if (s == null) {
            return null;
        }
        if (!anyFrozen(s)) {
            Double rails = railSum(s);
            if (rails != null) {
                return new HostPower(rails, PowerSource.RAILS);
            }
        }
        Double system = system(s);
        return system == null ? null : new HostPower(system, PowerSource.SYSTEM);
    }

    static Double railSum(HostSnapshot s) {
        Double pkg = s.power("package");
        if (pkg != null) {
            Double dram = s.power("dram");
            return dram == null ? pkg : pkg + dram;
        }
        Double sum = null;
        for (String rail : APPLE_RAILS) {
            Double w = s.power(rail);
            if (w != null) {
                sum = sum == null ? w : sum + w;
            }
        }
        return sum;
    }

    static Double system(HostSnapshot s) {
        Double w = s.value(HostMetrics.HOST_POWER);
        return w != null && Double.isFinite(w) && w >= 0 ? w : s.power("psys");
    }

    /** Whether a rail is frozen with no other source standing in for it (AppleCLPC for a frozen Energy Model rail). */
    static boolean anyFrozen(HostSnapshot s) {
        String frozen = AttrValues.RailStatus.FROZEN.value();
        java.util.Set<String> frozenRails = new java.util.HashSet<>();
        java.util.Set<String> powered = new java.util.HashSet<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER_RAIL_STATE && frozen.equals(p.attributes().get(AttrKeys.RAIL_STATUS))) {
                frozenRails.add(p.attributes().get(AttrKeys.HW_NAME));
            } else if (p.metric() == HostMetrics.POWER) {
                powered.add(p.attributes().get(AttrKeys.HW_NAME));
            }
        }
        frozenRails.removeAll(powered);
        return !frozenRails.isEmpty();
    }
}
