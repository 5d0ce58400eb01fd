package io.tailwatch.core.host;

import io.tailwatch.metrics.AttrValues.SamplerState;
import io.tailwatch.metrics.Point;
import java.util.List;

/**
 * Stands in for a native sampler whose probe crashed or hung the self-check's child process: it is
 * never read, publishes nothing, and {@link HostSampling} reports it with its state and reason.
 */
public final class BlockedSampler implements Sampler {
    private final String name;
    private final String probeId;
    private final SamplerState state;
    private final String reason;

    public BlockedSampler(String name, String probeId, SamplerState state, String reason) {
        if (state == SamplerState.RUNNING) {
            throw new IllegalArgumentException("a blocked sampler cannot be running");
        }
        this.name = name;
        this.probeId = probeId;
        this.state = state;
        this.reason = reason;
    }

    @Override
    public String name() {
        return name;
    }

    public String probeId() {
        return probeId;
    }

    public SamplerState state() {
        return state;
    }

    public String reason() {
        return reason;
    }

    @Override
    public List<Point> sample() {
        throw new IllegalStateException(reason);
    }
}
