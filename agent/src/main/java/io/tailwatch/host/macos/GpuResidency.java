package io.tailwatch.host.macos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * GPU active residency and residency-weighted frequency from the IOReport "GPU Stats" group
 * (subgroup "GPU Performance States", channel "GPUPH"). States OFF, IDLE and DOWN are inactive; the
 * remaining states, in order, run at the frequencies of the GPU's DVFS table.
 */
public final class GpuResidency {
    public static final String GROUP = "GPU Stats";
    public static final String SUBGROUP = "GPU Performance States";
    public static final String CHANNEL = "GPUPH";

    private GpuResidency() {
    }

    /** utilization in 0..1; frequencyHz null when no table matches or the GPU was never active. */
    public record Reading(double utilization, Double frequencyHz) {
    }

    static boolean inactive(String state) {
        String s = state.strip().toUpperCase(Locale.ROOT);
        return s.equals("OFF") || s.equals("IDLE") || s.equals("DOWN");
    }

    /**
     * Null when the channel is absent, the interval was empty, or a residency went backwards (a
     * counter reset: nothing sound can be said about that interval).
     */
    public static Reading decode(List<IOReportChannel> delta, long[] frequenciesHz) {
        IOReportChannel ch = null;
        for (IOReportChannel c : delta) {
            if (c.group().equals(GROUP) && c.name().equals(CHANNEL)
                    && (c.subgroup().isEmpty() || c.subgroup().equals(SUBGROUP))) {
                ch = c;
                break;
            }
        }
        if (ch == null || ch.states().isEmpty()) {
            return null;
        }
        long total = 0;
        long active = 0;
        List<Long> activeResidencies = new ArrayList<>();
        for (IOReportChannel.State s : ch.states()) {
            if (s.residency() < 0) {
                return null;
            }
            total += s.residency();
            if (!inactive(s.name())) {
                active += s.residency();
                activeResidencies.add(s.residency());
            }
        }
        if (total <= 0) {
            return null;
        }
        Double freq = null;
        if (active > 0 && frequenciesHz != null && frequenciesHz.length >= activeResidencies.size()
                && !activeResidencies.isEmpty()) {
            double weighted = 0;
            for (int i = 0; i < activeResidencies.size(); i++) {
                weighted += (double) activeResidencies.get(i) * frequenciesHz[i];
            }
            freq = weighted / active;
        }
        return new Reading((double) active / total, freq);
    }
}
