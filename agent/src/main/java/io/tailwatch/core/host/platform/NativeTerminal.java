package io.tailwatch.core.host.platform;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * Whether a file descriptor is a terminal, asked of the C library (isatty) on macOS and Linux alike. The
 * one native call outside the macOS samplers; the command line uses it to choose between a progress bar
 * and plain lines.
 */
public final class NativeTerminal {
    private NativeTerminal() {
    }

    /** Whether {@code fd} is a terminal; false when that cannot be asked (no libc through JNA). */
    public static boolean isTerminal(int fd) {
        try {
            return LibC.INSTANCE.isatty(fd) == 1;
        } catch (Throwable e) { // unusual platform: plain lines are always safe
            return false;
        }
    }

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int isatty(int fd);
    }
}
