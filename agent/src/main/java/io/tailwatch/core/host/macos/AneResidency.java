package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.NativeProbe;
import java.util.List;
import java.util.Locale;

/**
 * The Neural Engine's busy share from IOReport's ANE residency counters: state channels of group
 * {@value #GROUP} whose name starts with {@code ANE}, each with an {@code ACTIVE} and an {@code INACTIVE}
 * state whose residencies (time in the state over the interval, in the driver's ticks) are the counters.
 * Busy share = active / (active + inactive), summed over channels (one per ANE on a two-die chip). A state
 * named otherwise is not counted; IOReport's INT64_MIN fill and negative residencies are no reading.
 */
public final class AneResidency {
    public static final String GROUP = "H11ANE";
    public static final String CHANNEL_PREFIX = "ANE";

    private AneResidency() {
    }

    /** Whether a channel name is one of the ANE's residency channels. */
    public static boolean wanted(String channelName) {
        return channelName.strip().startsWith(CHANNEL_PREFIX);
    }

    /** The busy share over the delta, or null when the counters are absent or show no time at all. */
    public static Double busyShare(List<IOReportChannel> channels) {
        long active = 0;
        long inactive = 0;
        boolean any = false;
        for (IOReportChannel c : channels) {
            if (!wanted(c.name()) || !(c.group().isEmpty() || c.group().equals(GROUP))) {
                continue;
            }
            for (IOReportChannel.State s : c.states()) {
                if (s.residency() < 0) {
                    continue;
                }
                switch (s.name().strip().toUpperCase(Locale.ROOT)) {
                    case "ACTIVE" -> {
                        active += s.residency();
                        any = true;
                    }
                    case "INACTIVE" -> {
                        inactive += s.residency();
                        any = true;
                    }
                    default -> {
                    }
                }
            }
        }
        long total = active + inactive;
        return any && total > 0 ? (double) active / total : null;
    }

    /**
     * The self-check's test: some ANE channel has both an ACTIVE and an INACTIVE state. Channels without
     * them mean the driver's residencies are laid out otherwise than this decoder reads them.
     */
    public static void checkLayout(List<IOReportChannel> channels) throws NativeProbe.WrongLayout {
        for (IOReportChannel c : channels) {
            if (!wanted(c.name())) {
                continue;
            }
            boolean a = false;
            boolean i = false;
            for (IOReportChannel.State s : c.states()) {
                String n = s.name().strip().toUpperCase(Locale.ROOT);
                a |= n.equals("ACTIVE");
                i |= n.equals("INACTIVE");
            }
            if (a && i) {
                return;
            }
        }
        throw new NativeProbe.WrongLayout("no ANE channel with ACTIVE and INACTIVE states among " + channels.size()
                + " " + GROUP + " channels");
    }
}
