package io.tailwatch.bench;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.PrometheusExporter;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One full host sample (every sampler of this OS, published to the hub and mirrored into the
 * Prometheus registry) and one /metrics render of the resulting registry.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HostSampleBenchmark {
    private HostSampling sampling;
    private PrometheusExporter prometheus;

    @Setup
    public void setUp() throws Exception {
        Config config = Config.defaults(System.getenv());
        MetricHub hub = new MetricHub();
        prometheus = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "bench"));
        sampling = new HostSampling(HostSources.forThisHost(config), config.host().interval(), config.host().timeout(),
                hub, Clock.systemUTC());
        sampling.sampleOnce();
    }

    @TearDown
    public void tearDown() {
        sampling.close();
    }

    @Benchmark
    public HostSnapshot fullHostSample() {
        return sampling.sampleOnce();
    }

    @Benchmark
    public String renderMetrics() {
        return prometheus.scrape("text/plain");
    }

    @Benchmark
    public String renderOpenMetrics() {
        return prometheus.scrape("application/openmetrics-text");
    }
}
