package io.tailwatch.bench;

import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One rule-evaluation cycle (all 11 rules, the baseline check, signals and alert.active publish) over
 * a host with 4 engines x 2 models x 2 scenarios of probe windows, two of them with a firing alert.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RuleEvaluationBenchmark {
    private RuleEngine engine;
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Setup
    public void setUp() {
        MetricHub hub = new MetricHub();
        List<Point> host = new ArrayList<>();
        host.add(Point.of(HostMetrics.PAGING_USAGE, 2.0 * (1L << 30), PagingState.USED));
        host.add(Point.of(HostMetrics.PAGING_USAGE, 6.0 * (1L << 30), PagingState.FREE));
        host.add(Point.of(HostMetrics.PRESSURE_LEVEL, 0));
        host.add(Point.of(HostMetrics.THERMAL_LEVEL, 0));
        host.add(Point.of(HostMetrics.CPU_SPEED_LIMIT, 1));
        host.add(Point.of(HostMetrics.MEMORY_AVAILABLE, 20.0 * (1L << 30)));
        hub.publish("host", host);
        List<Point> probes = new ArrayList<>();
        List<Point> baselines = new ArrayList<>();
        for (int e = 0; e < 4; e++) {
            String en = "engine" + e;
            probes.add(Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, en));
            probes.add(Point.of(EngineMetrics.LOADING, 0, AttrKeys.ENGINE, en));
            probes.add(Point.of(HostMetrics.PROCESS_FOOTPRINT, 12.0 * (1L << 30), AttrKeys.ENGINE, en));
            for (int m = 0; m < 2; m++) {
                String mn = "model" + m;
                probes.add(Point.of(EngineMetrics.MODEL_CONTEXT, 32768, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn));
                probes.add(Point.of(EngineMetrics.KV_HEADROOM, 500000, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn));
                for (String sc : List.of("interactive", "batch")) {
                    double p95 = e == 0 ? 12 : 3.6;
                    for (String q : List.of("p50", "p95", "p99")) {
                        double v = q.equals("p50") ? 3.4 : q.equals("p95") ? p95 : p95 * 1.1;
                        probes.add(Point.of(ProbeMetrics.WINDOW_E2E, v, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn, AttrKeys.SCENARIO, sc, AttrKeys.PERCENTILE, q));
                        probes.add(Point.of(ProbeMetrics.WINDOW_TTFT, 0.2, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn, AttrKeys.SCENARIO, sc, AttrKeys.PERCENTILE, q));
                    }
                    probes.add(Point.of(ProbeMetrics.WINDOW_ERROR_RATIO, 0, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn, AttrKeys.SCENARIO, sc));
                    probes.add(Point.of(ProbeMetrics.WINDOW_SAMPLES, 30, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn, AttrKeys.SCENARIO, sc));
                    baselines.add(Point.of(AlertMetrics.BASELINE_E2E_P95, 3.6, AttrKeys.ENGINE, en, AttrKeys.MODEL, mn, AttrKeys.SCENARIO, sc));
                }
            }
        }
        hub.publish("probes", probes);
        hub.publish("baselines", baselines);
        engine = new RuleEngine(RulesConfig.defaults(), List.of("interactive"), hub, null, 20, Duration.ofMinutes(15));
        for (int i = 0; i < 30; i++) {
            cycle();
        }
    }

    @Benchmark
    public int cycle() {
        now = now.plusSeconds(5);
        engine.evaluate(now);
        return engine.alerts().size();
    }
}
