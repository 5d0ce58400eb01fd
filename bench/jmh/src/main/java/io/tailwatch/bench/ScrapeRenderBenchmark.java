package io.tailwatch.bench;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.metrics.PrometheusExporter;
import java.io.OutputStream;
import java.util.ArrayList;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One /metrics rendering of a hub shaped like a live daemon's: per engine the health and inventory
 * gauges, and per scenario the probe gauges, rolling-window percentiles and the four GenAI client
 * histograms with their full attribute sets (the bulk of the lines). {@code engines} = 1 gives about
 * 250 series, 25 about 6,000: the sizes a daemon with one and with 25 engines (2 scenarios each) serves.
 * The exposition is streamed into a sink that only counts bytes, as the /metrics route streams it to
 * the response. Run it with the daemon's flags too: {@code -jvmArgsAppend "$(bench/jvm-flags.sh)"}.
 * Besides the wall time, {@code cpuNanos / renders} is the CPU time of one rendering, which a machine
 * shared with other work disturbs much less.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ScrapeRenderBenchmark {
    static final String[] SCENARIOS = {"interactive", "batch"};

    @Param({"1", "20", "25"})
    public int engines;

    @Param({"text/plain", "application/openmetrics-text"})
    public String accept;

    /**
     * What changes in the hub before each rendering (outside the measured time): {@code none}; {@code probe},
     * one scenario's probe (its five histogram series recorded into, its gauges republished with new
     * values), what a daemon at 20 engines x 2 scenarios sees between two scrapes 0.6 s apart; {@code all},
     * every histogram series recorded into and every gauge value new (a rendering with nothing to reuse).
     */
    @Param({"none", "probe", "all"})
    public String change;

    private MetricHub hub;
    private int round;

    private PrometheusExporter prometheus;
    private final Counting sink = new Counting();

    /** Counts the bytes written, keeps none (a socket that reads as fast as it is written). */
    static final class Counting extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }

    @Setup(Level.Invocation)
    public void change() {
        if (!change.equals("none")) {
            round++;
            int target = change.equals("all") ? -1 : round % (engines * SCENARIOS.length);
            publish(hub, engines, round, target);
        }
    }

    @Setup
    public void setUp() {
        hub = new MetricHub();
        prometheus = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "bench"), false);
        fill(hub, engines);
    }

    /** Publishes and records what {@code engines} probed engines with two scenarios each make a daemon hold. */
    static void fill(MetricHub hub, int engines) {
        for (int i = 0; i < 20; i++) {
            publish(hub, engines, i, -1);
        }
    }

    /**
     * Publishes the gauges, values moved by {@code round} for scenario {@code target} (engine-major; -1: all),
     * and records one probe into the histogram series of that scenario.
     */
    static void publish(MetricHub hub, int engines, int round, int target) {
        List<Point> points = new ArrayList<>();
        for (int e = 0; e < engines; e++) {
            String engine = String.format("engine-%02d", e);
            String model = "llama3.2:3b";
            points.add(Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.REACHED, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.MODELS_LOADED, 1, AttrKeys.ENGINE, engine));
            points.add(Point.of(EngineMetrics.INFO, 1, AttrKeys.ENGINE, engine, AttrKeys.ENGINE_API, "ollama",
                    AttrKeys.ENGINE_VERSION, "0.6.2"));
            points.add(Point.of(EngineMetrics.MODEL_CONTEXT, 4096, AttrKeys.ENGINE, engine, "gen_ai.request.model", model));
            for (int sc = 0; sc < SCENARIOS.length; sc++) {
                String scenario = SCENARIOS[sc];
                boolean changed = target < 0 || target == e * SCENARIOS.length + sc;
                double moved = changed ? round * 1e-3 : 0;
                points.add(Point.of(ProbeMetrics.PROBE_SUCCESS, 1, AttrKeys.ENGINE, engine, "tailwatch.scenario", scenario));
                points.add(Point.of(ProbeMetrics.DECODE_RATE, 87.5 + moved, AttrKeys.ENGINE, engine, "tailwatch.scenario", scenario));
                for (String p : new String[] {"p50", "p95", "p99"}) {
                    points.add(Point.of(ProbeMetrics.WINDOW_E2E, 0.42 + moved, AttrKeys.ENGINE, engine, "gen_ai.request.model", model,
                            "tailwatch.scenario", scenario, "tailwatch.percentile", p));
                    points.add(Point.of(ProbeMetrics.WINDOW_TTFT, 0.21 + moved, AttrKeys.ENGINE, engine, "gen_ai.request.model", model,
                            "tailwatch.scenario", scenario, "tailwatch.percentile", p));
                }
                points.add(Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, 0, AttrKeys.ENGINE, engine, "gen_ai.request.model", model,
                        "tailwatch.scenario", scenario));
                points.add(Point.of(ProbeMetrics.WINDOW_SAMPLES, 20, AttrKeys.ENGINE, engine, "gen_ai.request.model", model,
                        "tailwatch.scenario", scenario));
                Map<String, String> probe = Map.of(AttrKeys.ENGINE, engine, "tailwatch.scenario", scenario,
                        "gen_ai.operation.name", "chat", "gen_ai.provider.name", "ollama", "gen_ai.request.model", model,
                        "gen_ai.response.model", model, "server.address", "127.0.0.1", "server.port", String.valueOf(11434 + e));
                if (changed) {
                    int i = round % 20;
                    hub.record(ProbeMetrics.OPERATION_DURATION, probe, 0.3 + i * 0.01);
                    hub.record(ProbeMetrics.TIME_TO_FIRST_CHUNK, probe, 0.2 + i * 0.005);
                    hub.record(ProbeMetrics.TIME_PER_OUTPUT_CHUNK, probe, 0.011);
                    for (String type : new String[] {"input", "output"}) {
                        Map<String, String> tokens = new java.util.HashMap<>(probe);
                        tokens.put("gen_ai.token.type", type);
                        tokens.put("tailwatch.token.source", "usage");
                        hub.record(ProbeMetrics.TOKEN_USAGE, tokens, 16);
                    }
                }
            }
        }
        hub.publish("bench", points);
    }

    /**
     * The rendering thread's CPU time, allocation and renderings over each measured iteration (the
     * renderings alone, not the changes made before them); JMH reports them as sums over the iterations,
     * so {@code cpuNanos / renders} is the CPU time of one rendering.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        static final com.sun.management.ThreadMXBean THREADS =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        public long renders;
        public long cpuNanos;
        /** Bytes the rendering thread allocated: {@code allocatedBytes / renders} is the garbage of one rendering. */
        public long allocatedBytes;

        @Setup(Level.Iteration)
        public void begin() {
            renders = 0;
            cpuNanos = 0;
            allocatedBytes = 0;
        }
    }

    @Benchmark
    public long render(Cpu cpu) throws java.io.IOException {
        long thread = Thread.currentThread().getId();
        long allocated = Cpu.THREADS.getThreadAllocatedBytes(thread);
        long start = Cpu.THREADS.getCurrentThreadCpuTime();
        sink.bytes = 0;
        prometheus.scrape(accept, sink);
        cpu.cpuNanos += Cpu.THREADS.getCurrentThreadCpuTime() - start;
        cpu.allocatedBytes += Cpu.THREADS.getThreadAllocatedBytes(thread) - allocated;
        cpu.renders++;
        return sink.bytes;
    }
}
