package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.tools.capacity.HostFigures;
import java.time.Clock;

/**
 * The host samplers, run in-process on demand: each call takes one fresh sample (every sampler
 * under its own deadline) and returns the figures a capacity run records.
 */
final class HostReader implements AutoCloseable {
    private final HostSampling sampling;
    private final String engine;

    HostReader(Config config, String engine) {
        this.sampling = new HostSampling(HostSources.forThisHost(config), config.host().interval(),
                config.host().timeout(), new MetricHub(), Clock.systemUTC());
        this.engine = engine;
    }

    HostFigures read() {
        return HostFigures.of(sampling.sampleOnce(), engine);
    }

    /** One fresh sample, whole. */
    io.tailwatch.core.host.HostSnapshot sample() {
        return sampling.sampleOnce();
    }

    @Override
    public void close() {
        sampling.close();
    }
}
