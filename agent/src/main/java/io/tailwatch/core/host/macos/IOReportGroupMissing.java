package io.tailwatch.core.host.macos;

import java.io.IOException;

/**
 * IOReport loaded but this machine has no such channel group (an Intel Mac has no "Energy Model"):
 * the signal does not exist here, which is not a failure. A missing library or a refused
 * subscription stays an ordinary IOException, and a failure.
 */
public final class IOReportGroupMissing extends IOException {
    public IOReportGroupMissing(String message) {
        super(message);
    }

    /** True when opening failed only because the group does not exist on this machine. */
    static boolean isCause(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOReportGroupMissing) {
                return true;
            }
        }
        return false;
    }
}
