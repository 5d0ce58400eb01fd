package io.tailwatch.bench;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.Point;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One full host sample: every sampler of this OS once, exactly as the daemon runs them each
 * interval (on macOS: sysctls, host_statistics64, the notify state, IOPMCopyCPUPowerStatus, two
 * IOReport deltas and the engine-process memory reads). Reports wall time per sample and, as the
 * auxiliary counter {@code cpuNanos}, the thread's CPU time per sample, which the budget is about.
 * The native libraries are opened during set-up, as the daemon opens them on its first sample.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(1)
public class SampleCpuBenchmark {
    /**
     * "defaults": the built-in config (two engines, so engine-process lookups are included, a full
     * process-table walk every 12th sample); "no-engines": host signals only.
     */
    @Param({"defaults", "no-engines"})
    public String config;

    private List<Sampler> samplers;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    /**
     * CPU nanoseconds of the sampling thread and the number of samples, summed over each iteration;
     * CPU per sample = cpuNanos / samples.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Cpu {
        public long cpuNanos;
        public long samples;

        @Setup(Level.Iteration)
        public void reset() {
            cpuNanos = 0;
            samples = 0;
        }
    }

    @Setup(Level.Trial)
    public void open() throws Exception {
        Config c = Config.defaults(Map.of());
        if (config.equals("no-engines")) {
            c = new Config(c.source(), c.server(), c.host(), c.otlp(), List.of(), c.rules(), c.alerts(),
                    io.tailwatch.core.config.DiscoveryConfig.OFF);
        }
        samplers = HostSources.forThisHost(c);
        for (Sampler s : samplers) {
            try {
                s.sample();
            } catch (Exception e) {
                System.err.println("sampler " + s.name() + " fails on this machine: " + e.getMessage());
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        for (Sampler s : samplers) {
            if (s instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    @Benchmark
    public void fullSample(Blackhole bh, Cpu cpu) {
        long start = threads.getCurrentThreadCpuTime();
        for (Sampler s : samplers) {
            try {
                List<Point> points = s.sample();
                bh.consume(points);
            } catch (Exception e) {
                bh.consume(e);
            }
        }
        cpu.cpuNanos += threads.getCurrentThreadCpuTime() - start;
        cpu.samples++;
    }
}
