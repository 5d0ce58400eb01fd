package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.tools.capacity.HostFigures;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The host samplers, run in-process on demand: each call takes one fresh sample (every sampler
 * under its own deadline) and returns the figures a capacity run records.
 */
final class HostReader implements AutoCloseable {
    /** The name an ad-hoc {@code --url} engine's processes are sampled under (never shown). */
    static final String URL_ENGINE = "url-target";

    private final HostSampling sampling;
    private final String engine;

    HostReader(Config config, String engine) {
        this(config, engine, HostSources.forThisHost(config));
    }

    /**
     * For one engine's footprint: a configured engine's processes (by its port, then its process names), or an
     * ad-hoc {@code --url}'s, found by the URL's port when it names this host; {@code target} null for none.
     */
    HostReader(Config config, EngineTarget target) {
        this(config, target == null ? null : target.configured() ? target.name() : URL_ENGINE, withUrlEngine(config, target));
    }

    HostReader(Config config, String engine, List<Sampler> samplers) {
        this.sampling = new HostSampling(samplers, config.host().interval(), config.host().timeout(), new MetricHub(),
                Clock.systemUTC());
        this.engine = engine;
    }

    /** This host's samplers, the engine-process one also following an ad-hoc target. */
    static List<Sampler> withUrlEngine(Config config, EngineTarget target) {
        List<Sampler> samplers = HostSources.forThisHost(config);
        if (target != null && !target.configured()) {
            EngineConfig e = urlEngine(target);
            for (Sampler s : samplers) {
                if (s instanceof EngineProcessSampler p) {
                    p.add(e);
                }
            }
        }
        return samplers;
    }

    /** An ad-hoc target as an engine without process names: found by its URL's port alone. */
    static EngineConfig urlEngine(EngineTarget target) {
        return new EngineConfig(URL_ENGINE, target.api(), target.url(), null, null, Duration.ofSeconds(15),
                Duration.ofSeconds(5), false, List.of(), List.of(), null);
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
