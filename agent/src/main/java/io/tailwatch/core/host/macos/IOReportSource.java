package io.tailwatch.core.host.macos;

import java.io.IOException;

/**
 * A long-lived IOReport subscription. Each call takes a new sample and returns the delta against
 * the previous call's sample, or null on the first call (there is nothing to compare against yet).
 */
public interface IOReportSource extends AutoCloseable {
    IOReportDelta next() throws IOException;

    @Override
    void close();
}
