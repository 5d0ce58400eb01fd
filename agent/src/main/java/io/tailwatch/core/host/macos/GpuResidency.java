package io.tailwatch.core.host.macos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * GPU active residency and residency-weighted frequency from the IOReport "GPU Stats" group
 * (subgroup "GPU Performance States", channel "GPUPH"). States OFF, IDLE and DOWN are inactive.
 *
 * <p>Pairing states with the DVFS table ({@code voltage-states9}): entry 0 of the table is the
 * GPU's off state, and the n-th active state runs at entry n + 1, whatever entry 0 holds. On the
 * published M1-M4 tables entry 0 is a zero frequency (M2 Ultra, from macmon's issue #68:
 * 0, 444, 612, 808, 968, 1110, 1236, 1338, 1398 MHz, whose top step is Apple's 1.398 GHz), so
 * dropping zeros and pairing by position agree there; on a table whose entry 0 is non-zero,
 * dropping zeros (mactop, internal/app/ioreport.m lines 159-166) pairs every state with the step
 * below its own. macmon pairs by position ({@code calc_freq(.., &gpu_freqs[1..])}, src_lib/metrics.rs
 * line 506, after skipping the leading OFF/IDLE/DOWN states, lines 212-215), and so does this class.
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
        if (active > 0 && frequenciesHz != null && frequenciesHz.length - 1 >= activeResidencies.size()
                && !activeResidencies.isEmpty()) {
            double weighted = 0;
            for (int i = 0; i < activeResidencies.size(); i++) {
                // Entry 0 is the off state: the i-th active state runs at entry i + 1.
                weighted += (double) activeResidencies.get(i) * frequenciesHz[i + 1];
            }
            freq = weighted / active;
        }
        return new Reading((double) active / total, freq);
    }
}
