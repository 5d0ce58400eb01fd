package io.tailwatch.core.host;

/**
 * A sampler that makes native calls: it names the {@link NativeProbe} that makes the same calls, and
 * the daemon starts it only when that probe did not crash or hang the self-check's child process on
 * this OS build.
 */
public interface NativeSampler extends Sampler {
    /** The id of the probe in this platform's {@link NativeProbes}; null when this instance makes no native call. */
    String probeId();
}
