package io.tailwatch.core.host;

import java.util.List;

/**
 * The native probes of one platform. The self-check's child process builds the implementation by its
 * class name through its public no-argument constructor, so an implementation must not need any
 * state of the daemon (no config, nothing opened yet).
 */
public interface NativeProbes {
    List<NativeProbe> probes();
}
