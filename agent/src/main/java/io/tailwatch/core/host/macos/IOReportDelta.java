package io.tailwatch.core.host.macos;

import java.util.List;

/** The channels of one IOReport delta and the seconds measured between its two samples. */
public record IOReportDelta(double seconds, List<IOReportChannel> channels) {
    public IOReportDelta {
        channels = List.copyOf(channels);
    }
}
