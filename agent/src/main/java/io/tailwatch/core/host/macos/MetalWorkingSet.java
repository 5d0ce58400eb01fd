package io.tailwatch.core.host.macos;

import java.io.IOException;

/**
 * The Metal figure the GPU memory limit comes from. The native implementation
 * ({@link MacNativeMetal}) is the only one that loads Metal; tests give the value by hand.
 */
public interface MetalWorkingSet {
    /** {@code MTLDevice.recommendedMaxWorkingSetSize} of the system default device, in bytes. */
    long recommendedMaxWorkingSetSize() throws IOException;
}
