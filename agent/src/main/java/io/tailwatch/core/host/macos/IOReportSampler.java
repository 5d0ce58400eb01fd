package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import java.io.IOException;

/**
 * A sampler fed by one long-lived IOReport subscription. Opens the subscription on first use,
 * treats a channel group this machine does not have as an absent signal, and closes the
 * subscription only if it was ever opened.
 */
abstract class IOReportSampler implements NativeSampler, AutoCloseable {
    private final Lazy<IOReportSource> source;

    IOReportSampler(Lazy<IOReportSource> source) {
        this.source = source;
    }

    /**
     * The next delta, or null when there is nothing to export this cycle: the group is missing on
     * this machine (Intel Macs) or the subscription has only taken its baseline.
     */
    final IOReportDelta nextDelta() throws IOException {
        IOReportSource src;
        try {
            src = source.get();
        } catch (IOException e) {
            if (IOReportGroupMissing.isCause(e)) {
                // This machine has no such channels (Intel Macs): the signal is absent, not failing.
                return null;
            }
            throw e;
        }
        return src.next();
    }

    @Override
    public void close() {
        IOReportSource s = source.ifOpened();
        if (s != null) {
            s.close();
        }
    }
}
