package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.Signals;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The symptom table, case by case: the expected cause ranks first and carries its figure. */
class DiagnosisTest {
    private static final double GIB = 1L << 30;

    private static Signals.Host host(Double swap, Double change, Double pressure, Double thermal, Double speed) {
        return new Signals.Host(swap, change, pressure, 8 * GIB, 64 * GIB, thermal, speed);
    }

    private static Signals.Host calm() {
        return host(0.0, 0.0, 0.0, 0.0, 1.0);
    }

    private static Signals.Window window(String engine, double p50, double p95, double p99, double ttft95, double errors,
                                         double samples, Double baseline) {
        return new Signals.Window(engine, "qwen", "interactive", p50, p95, p99, ttft95 / 2, ttft95, ttft95 * 1.2, errors,
                samples, baseline, 30.0, true);
    }

    private static Signals.Engine up(String name) {
        return new Signals.Engine(name, 1.0, 0.0, 12 * GIB, null, List.of(new Signals.Model("qwen", 8192.0, 500000.0)), null);
    }

    @Test
    void calmHostHasNoCauses() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 3.4, 3.6, 3.7, 0.2, 0, 30, 3.6)));
        assertThat(Diagnosis.rank(s, null)).isEmpty();
    }

    @Test
    void tailSpreadWithoutSwapPointsAtBackgroundJobs() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 3.4, 3.6, 14.0, 0.2, 0, 30, 3.5)));
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c.get(0).id()).isEqualTo("background");
        assertThat(c.get(0).figures().get(0)).contains("mlx/qwen/interactive p99 14.00 s = 3.9x p95 3.60 s (30 samples)");
        assertThat(c.get(0).runbook()).isEqualTo("docs/runbook.md#TailLatencySpread");
    }

    @Test
    void tailSpreadWithFewSamplesIsNotEvidence() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 3.4, 3.6, 14.0, 0.2, 0, 10, 3.5)));
        assertThat(Diagnosis.rank(s, null)).isEmpty();
    }

    @Test
    void severalSignalsDegradingTogetherPointAtMemory() {
        Signals s = new Signals(host(3 * GIB, 2.5 * GIB, 1.0, 0.0, 1.0), List.of(up("mlx")),
                List.of(window("mlx", 8, 14, 60, 2, 0.1, 30, 3.5)));
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c.get(0).id()).isEqualTo("memory");
        assertThat(c.get(0).figures()).contains("swap used 3.00 GiB", "swap grew 2.50 GiB in 10m", "memory pressure level 1")
                .anySatisfy(f -> assertThat(f).contains("signals degrading together"));
        assertThat(c.get(0).runbook()).isEqualTo("docs/runbook.md#SwapGrowthUnderLoad");
        assertThat(c).extracting(Diagnosis.Cause::id).contains("background", "queueing", "errors");
    }

    @Test
    void p95OverBaselineWithoutSwapIsQueueing() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 15.75, 35.01, 36, 0.3, 0, 30, 3.67)));
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c.get(0).id()).isEqualTo("queueing");
        assertThat(c.get(0).figures().get(0)).contains("p95 35.01 s = 9.5x the single-request baseline 3.67 s");
    }

    @Test
    void goodThroughputButStallsPointsAtTtft() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 1.5, 2.0, 2.2, 1.5, 0, 30, 1.8)));
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c.get(0).id()).isEqualTo("ttft");
        assertThat(c.get(0).figures()).contains("mlx/qwen/interactive TTFT p95 1.50 s (SLO 500 ms)", "decode rate still 30.0 tok/s",
                "75% of e2e p95 is spent before the first token");
    }

    @Test
    void intermittentErrorsWhileLoadingPointAtModelLoad() {
        Signals.Engine loading = new Signals.Engine("mlx", 1.0, 1.0, null, null, List.of(), null);
        Signals s = new Signals(calm(), List.of(loading), List.of(window("mlx", 3, 3.5, 3.6, 0.2, 0.2, 30, 3.5)));
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c.get(0).id()).isEqualTo("errors");
        assertThat(c.get(0).score()).isEqualTo(0.75);
        assertThat(c.get(0).figures()).contains("mlx/qwen/interactive error ratio 20.0%", "engine mlx reports it is loading a model");
    }

    @Test
    void downEngineRanksFirstAndEngineFilterApplies() {
        Signals.Engine down = new Signals.Engine("ollama", 0.0, 0.0, null, null, List.of(), null);
        Signals s = new Signals(calm(), List.of(up("mlx"), down), List.of(window("mlx", 3.4, 3.6, 14.0, 0.2, 0, 30, 3.5)));
        assertThat(Diagnosis.rank(s, null).get(0).id()).isEqualTo("down:ollama");
        assertThat(Diagnosis.rank(s, "mlx")).extracting(Diagnosis.Cause::id).containsExactly("background");
        assertThat(Diagnosis.rank(s, "ollama")).extracting(Diagnosis.Cause::id).containsExactly("down:ollama");
    }

    @Test
    void thermalAndKvHeadroom() {
        Signals.Engine tight = new Signals.Engine("mlx", 1.0, 0.0, null, null, List.of(new Signals.Model("qwen", 32768.0, 4000.0)), null);
        Signals s = new Signals(host(0.0, 0.0, 0.0, 2.0, 0.7), List.of(tight), List.of());
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null);
        assertThat(c).extracting(Diagnosis.Cause::id).containsExactly("thermal", "kv:mlx/qwen");
        assertThat(c.get(0).figures()).containsExactly("thermal pressure level 2", "CPU speed limit 70%");
        assertThat(c.get(1).figures()).containsExactly("headroom 4000 tokens < context length 32768");
    }

    private static Signals.Engine queued(String name, Signals.Queue q) {
        return new Signals.Engine(name, 1.0, 0.0, 12 * GIB, null, List.of(), q);
    }

    // p95 4.0x its baseline and p99 3.6x p95: both the queueing and the host causes are candidates.
    private static Signals.Window slowAndSpread() {
        return window("mlx", 5, 14, 50, 0.2, 0, 30, 3.5);
    }

    @Test
    void withoutQueueFiguresBothCausesStayAsBefore() {
        List<Diagnosis.Cause> c = Diagnosis.rank(new Signals(calm(), List.of(up("mlx")), List.of(slowAndSpread())), null);
        assertThat(c).extracting(Diagnosis.Cause::id).containsExactly("queueing", "background");
        assertThat(c).allSatisfy(x -> assertThat(x.figures()).noneMatch(f -> f.contains("queue")));
    }

    @Test
    void waitingRequestsWithP95OverBaselineIsSaturation() {
        Signals.Queue q = new Signals.Queue(4.0, 6.0, 0.92, null, null);
        List<Diagnosis.Cause> c = Diagnosis.rank(new Signals(calm(), List.of(queued("mlx", q)), List.of(slowAndSpread())), null);
        assertThat(c.get(0).id()).isEqualTo("queueing");
        assertThat(c.get(0).score()).isEqualTo(0.85);
        assertThat(c.get(0).figures()).contains("mlx queue: 6 waiting, 4 running, KV cache 92% (saturated: more requests than it serves)");
        assertThat(c.get(0).action()).contains("Rate-limit", "split lanes");
        assertThat(c.get(1).figures()).noneMatch(f -> f.contains("queue empty"));
    }

    @Test
    void estimatedQueueWaitCountsAsQueueingAndSaysEstimate() {
        Signals.Queue q = new Signals.Queue(null, null, null, 2.1, "estimate");
        List<Diagnosis.Cause> c = Diagnosis.rank(new Signals(calm(), List.of(queued("mlx", q)), List.of(slowAndSpread())), null);
        assertThat(c.get(0).id()).isEqualTo("queueing");
        assertThat(c.get(0).figures()).contains("mlx queue: wait 2.10 s (estimate) (saturated: more requests than it serves)");
    }

    @Test
    void emptyQueueWithLongTailPointsAtTheHost() {
        Signals.Queue q = new Signals.Queue(1.0, 0.0, null, null, null);
        List<Diagnosis.Cause> c = Diagnosis.rank(new Signals(calm(), List.of(queued("mlx", q)), List.of(slowAndSpread())), null);
        assertThat(c).extracting(Diagnosis.Cause::id).containsExactly("background", "queueing");
        assertThat(c.get(0).score()).isEqualTo(0.8);
        assertThat(c.get(0).figures()).contains("mlx queue empty: 0 waiting, 1 running (the engine is not queueing; the host is)");
        assertThat(c.get(0).action()).contains("swap");
    }

    @Test
    void smallQueueWaitEstimateCountsAsEmpty() {
        Signals.Queue q = new Signals.Queue(null, null, null, 0.04, "estimate");
        List<Diagnosis.Cause> c = Diagnosis.rank(new Signals(calm(), List.of(queued("mlx", q)), List.of(slowAndSpread())), null);
        assertThat(c.get(0).id()).isEqualTo("background");
        assertThat(c.get(0).figures()).contains("mlx queue empty: wait 40 ms (estimate) (the engine is not queueing; the host is)");
    }

    @Test
    void errorsAreRankedByTheirClass() {
        Signals s = new Signals(calm(), List.of(up("mlx")), List.of(window("mlx", 3.4, 3.6, 3.7, 0.2, 0.3, 30, 3.6)));
        // Every failure an HTTP 500: the engine fails requests; nothing about proxies or reloads.
        List<Diagnosis.Cause> c = Diagnosis.rank(s, null, java.util.Map.of("mlx", List.of("http_500", "http_500")));
        assertThat(c.get(0).id()).isEqualTo("errors:engine");
        assertThat(c.get(0).title()).contains("HTTP 500").doesNotContain("proxy");
        assertThat(c.get(0).figures()).contains("recent failures of mlx: http_500 x2");
        assertThat(c.get(0).runbook()).isEqualTo("docs/runbook.md#ProbeErrors");
        // Refused connections: the engine is down.
        c = Diagnosis.rank(s, null, java.util.Map.of("mlx", List.of("connect_refused")));
        assertThat(c.get(0).id()).isEqualTo("errors:down");
        assertThat(c.get(0).runbook()).isEqualTo("docs/runbook.md#EngineDown");
        // First-token timeouts while swap grows: overload or swap, and the memory evidence raises it.
        Signals swapping = new Signals(host(0.5 * GIB, 0.8 * GIB, 0.0, 0.0, 1.0), List.of(up("mlx")),
                List.of(window("mlx", 3.4, 3.6, 3.7, 0.2, 0.3, 30, 3.6)));
        c = Diagnosis.rank(swapping, null, java.util.Map.of("mlx", List.of("first_token_timeout", "http_500",
                "first_token_timeout")));
        Diagnosis.Cause overload = c.stream().filter(x -> x.id().equals("errors:overload")).findFirst().orElseThrow();
        assertThat(overload.score()).isEqualTo(0.8);
        assertThat(overload.figures()).contains("recent failures of mlx: first_token_timeout x2, http_500 x1");
        // Without known classes the generic cause stays.
        assertThat(Diagnosis.rank(s, null).stream().map(Diagnosis.Cause::id)).contains("errors");
    }
}
