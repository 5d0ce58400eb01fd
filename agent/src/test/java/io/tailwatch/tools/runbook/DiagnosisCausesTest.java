package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.Signals;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each cause rule on its own: what it concludes from the findings, with its score, and nothing on a calm host. */
class DiagnosisCausesTest {
    private static final double GIB = 1L << 30;

    private static Signals.Host host(Double swap, Double change, Double pressure, Double thermal, Double speed) {
        return new Signals.Host(swap, change, pressure, 8 * GIB, 64 * GIB, thermal, speed);
    }

    private static final Signals.Host CALM = host(0.0, 0.0, 0.0, 0.0, 1.0);

    private static Signals.Window window(double p95, double p99, double ttft95, double errors, Double baseline) {
        return new Signals.Window("mlx", "qwen", "interactive", p95 * 0.9, p95, p99, ttft95 / 2, ttft95, ttft95 * 1.2,
                errors, 30.0, baseline, 30.0, true);
    }

    private static final Signals.Window QUIET = window(3.6, 3.7, 0.2, 0, 3.6);

    private static Signals.Engine engine(Double up, Double loading, Signals.Queue q, Signals.Model... models) {
        return new Signals.Engine("mlx", up, loading, 12 * GIB, null, List.of(models), q);
    }

    private static final Signals.Engine UP = engine(1.0, 0.0, null);

    private static Diagnosis.Findings findings(Signals.Host h, Signals.Engine e, Signals.Window w) {
        return findings(h, e, w, Map.of());
    }

    private static Diagnosis.Findings findings(Signals.Host h, Signals.Engine e, Signals.Window w,
                                               Map<String, List<String>> failures) {
        return Diagnosis.Findings.of(new Signals(h, List.of(e), List.of(w)), null, failures);
    }

    private static double onlyScore(List<Diagnosis.Cause> causes, String id) {
        assertThat(causes).extracting(Diagnosis.Cause::id).containsExactly(id);
        return causes.get(0).score();
    }

    @Test
    void on_a_calm_host_no_rule_concludes_anything() {
        Diagnosis.Findings calm = findings(CALM, UP, QUIET);
        assertThat(Diagnosis.CAUSES).hasSize(10);
        for (Diagnosis.CauseRule rule : Diagnosis.CAUSES) {
            assertThat(rule.causes(calm)).isEmpty();
        }
    }

    private static Signals.Lane lane(String name, Double ttft, Double slo, Double wait, double inFlight) {
        return new Signals.Lane("mlx", name, 30.0, null, slo == null ? null : 0.9, ttft, slo, null, null, wait, inFlight);
    }

    private static List<Diagnosis.Cause> lanes(Signals.Lane... lanes) {
        return Diagnosis.laneDelayed(Diagnosis.Findings.of(new Signals(CALM, List.of(UP), List.of(QUIET), List.of(lanes)), null,
                Map.of()));
    }

    @Test
    void a_lane_delayed_while_another_holds_the_engine_is_blamed_on_that_lane() {
        // interactive over its 500 ms SLO and waiting 1.8 s; batch holds 2.4 of 3.0 in flight (80 %)
        List<Diagnosis.Cause> c = lanes(lane("interactive", 1.9, 0.5, 1.8, 0.6), lane("batch", 30.0, null, 0.1, 2.4));
        // 0.5 + 0.15 (over its SLO) + 0.15 (waits) + 0.1 (holds three quarters or more)
        assertThat(onlyScore(c, "lanes:mlx:interactive")).isEqualTo(0.9);
        assertThat(c.get(0).title()).isEqualTo("Lane interactive on mlx delayed by lane batch's requests (they hold the engine)");
        assertThat(c.get(0).figures()).containsExactly(
                "lane interactive on mlx: TTFT p95 1.90 s (SLO 500 ms) over 30 requests in 5m",
                "lane interactive on mlx: waited 1.80 s (p95) for the engine's response headers",
                "lane batch held 80% of mlx's requests in flight (2.4 of 3.0 on average over 5m)",
                "lane interactive itself: 0.6 in flight on average");
        assertThat(c.get(0).runbook()).isEqualTo("docs/runbook.md#LaneQueueWaitHigh");
    }

    @Test
    void a_slow_lane_nobody_else_holds_or_a_lane_within_its_slo_blames_no_lane() {
        // batch holds 40 %: the engine is slow by itself
        assertThat(lanes(lane("interactive", 1.9, 0.5, 1.8, 1.5), lane("batch", 30.0, null, 0.1, 1.0))).isEmpty();
        // interactive within its SLO and not waiting, however busy batch is
        assertThat(lanes(lane("interactive", 0.3, 0.5, 0.2, 0.2), lane("batch", 30.0, null, 0.1, 2.8))).isEmpty();
        // one lane alone
        assertThat(lanes(lane("interactive", 1.9, 0.5, 1.8, 1.0))).isEmpty();
    }

    @Test
    void memory_adds_swap_its_growth_and_pressure() {
        // 3 GiB used (0.3), 2.5 GiB growth (0.4), pressure level 1 (0.15); two degrading signals add nothing
        assertThat(onlyScore(Diagnosis.memory(findings(host(3 * GIB, 2.5 * GIB, 1.0, 0.0, 1.0), UP, QUIET)), "memory"))
                .isEqualTo(0.85);
        // a little swap alone: 0.1
        assertThat(onlyScore(Diagnosis.memory(findings(host(0.5 * GIB, 0.0, 0.0, 0.0, 1.0), UP, QUIET)), "memory"))
                .isEqualTo(0.1);
    }

    @Test
    void background_jobs_need_a_wide_tail_and_gain_from_an_empty_queue() {
        Signals.Window spread = window(3.6, 14.0, 0.2, 0, 3.5);
        assertThat(onlyScore(Diagnosis.backgroundJobs(findings(CALM, UP, spread)), "background")).isEqualTo(0.6);
        Signals.Engine idle = engine(1.0, 0.0, new Signals.Queue(1.0, 0.0, null, null, null));
        assertThat(onlyScore(Diagnosis.backgroundJobs(findings(CALM, idle, spread)), "background")).isEqualTo(0.8);
        assertThat(onlyScore(Diagnosis.backgroundJobs(findings(host(0.0, 0.0, 1.0, 0.0, 1.0), UP, spread)), "background"))
                .isEqualTo(0.35);
    }

    @Test
    void queueing_needs_p95_three_times_the_baseline_and_gains_from_a_busy_queue() {
        assertThat(Diagnosis.queueing(findings(CALM, UP, window(10.9, 11, 0.3, 0, 3.67)))).isEmpty(); // 2.97x
        Signals.Window slow = window(35.01, 36, 0.3, 0, 3.67); // 9.5x
        assertThat(onlyScore(Diagnosis.queueing(findings(CALM, UP, slow)), "queueing")).isEqualTo(0.65);
        Signals.Engine busy = engine(1.0, 0.0, new Signals.Queue(1.0, 3.0, null, null, null));
        assertThat(onlyScore(Diagnosis.queueing(findings(CALM, busy, slow)), "queueing")).isEqualTo(0.85);
        // swap growing points at memory rather than queueing: 0.4
        assertThat(onlyScore(Diagnosis.queueing(findings(host(0.0, GIB, 0.0, 0.0, 1.0), UP, slow)), "queueing"))
                .isEqualTo(0.4);
    }

    @Test
    void only_a_figure_that_measures_waiting_makes_the_slowdown_queueing() {
        Signals.Window slow = window(35.01, 36, 0.3, 0, 3.67); // 9.5x the baseline
        // No queue figure: load, and the title does not claim requests wait.
        Diagnosis.Cause none = Diagnosis.queueing(findings(CALM, UP, slow)).get(0);
        assertThat(none.title()).contains("queueing not measured").doesNotContain("wait in");
        assertThat(none.figures()).anySatisfy(f -> assertThat(f).startsWith("mlx: nothing it reports counts requests waiting"));
        // Measured empty (a batching engine running 4 at once, 0 waiting): not queueing, and scored lower.
        Signals.Engine batching = engine(1.0, 0.0, new Signals.Queue(4.0, 0.0, null, null, null, "engine"));
        Diagnosis.Cause empty = Diagnosis.queueing(findings(CALM, batching, slow)).get(0);
        assertThat(empty.score()).isEqualTo(0.45);
        assertThat(empty.title()).contains("nothing waiting").doesNotContain("wait in");
        assertThat(empty.figures()).contains("mlx queue empty: 0 waiting, 4 running (the engine's count) (nothing waits: the "
                + "requests it runs together slow each other)");
        // Waiting counted by the proxy against the batch size: queueing, and the figure says where it comes from.
        Signals.Engine proxied = engine(1.0, 0.0, new Signals.Queue(32.0, 5.0, null, null, null, "proxy"));
        Diagnosis.Cause busy = Diagnosis.queueing(findings(CALM, proxied, slow)).get(0);
        assertThat(busy.score()).isEqualTo(0.85);
        assertThat(busy.title()).isEqualTo(Diagnosis.QUEUE_TITLE);
        assertThat(busy.figures()).contains("mlx queue: 5 waiting, 32 running (the proxy's requests in flight against the "
                + "engine's batch size) (saturated: more requests than it serves)");
    }

    @Test
    void ttft_stalls_need_ttft_over_the_slo() {
        // 0.45, + 0.1 for a decode rate, + 0.1 for 75 % of e2e before the first token
        assertThat(onlyScore(Diagnosis.ttftStalls(findings(CALM, UP, window(2.0, 2.2, 1.5, 0, 1.8))), "ttft"))
                .isEqualTo(0.65);
        assertThat(Diagnosis.ttftStalls(findings(CALM, UP, window(2.0, 2.2, 0.5, 0, 1.8)))).isEmpty();
    }

    @Test
    void an_engine_is_down_when_its_health_fails_and_it_is_not_loading() {
        assertThat(onlyScore(Diagnosis.engineDown(findings(CALM, engine(0.0, 0.0, null), QUIET)), "down:mlx"))
                .isEqualTo(0.95);
        assertThat(Diagnosis.engineDown(findings(CALM, engine(0.0, 1.0, null), QUIET))).isEmpty();
    }

    @Test
    void errors_are_named_by_their_most_frequent_class() {
        Diagnosis.Findings f = findings(CALM, UP, window(3.6, 3.7, 0.2, 0.2, 3.6),
                Map.of("mlx", List.of("http_500", "connect_refused", "http_500")));
        List<Diagnosis.Cause> c = Diagnosis.errors(f);
        assertThat(onlyScore(c, "errors:engine")).isEqualTo(0.7);
        assertThat(c.get(0).figures()).containsExactly("mlx/qwen/interactive error ratio 20.0%",
                "recent failures of mlx: http_500 x2, connect_refused x1");
        // no failure classes known: the generic cause, raised by a model load
        assertThat(onlyScore(Diagnosis.errors(findings(CALM, engine(1.0, 1.0, null), window(3.6, 3.7, 0.2, 0.2, 3.6))),
                "errors")).isEqualTo(0.75);
    }

    @Test
    void answers_without_an_output_token_are_a_cause_of_their_own() {
        Diagnosis.Findings f = findings(CALM, UP, window(3.6, 3.7, 0.2, 1.0, 3.6),
                Map.of("mlx", List.of("no_output", "no_output", "no_output")));
        List<Diagnosis.Cause> c = Diagnosis.errors(f);
        assertThat(onlyScore(c, "errors:empty")).isEqualTo(0.7);
        assertThat(c.get(0).title()).contains("without a single output token");
        assertThat(c.get(0).figures()).contains("recent failures of mlx: no_output x3");
    }

    @Test
    void thermal_adds_heavy_pressure_and_a_lowered_speed_limit() {
        assertThat(onlyScore(Diagnosis.thermal(findings(host(0.0, 0.0, 0.0, 2.0, 0.7), UP, QUIET)), "thermal"))
                .isEqualTo(0.8);
        assertThat(onlyScore(Diagnosis.thermal(findings(host(0.0, 0.0, 0.0, 0.0, 0.7), UP, QUIET)), "thermal"))
                .isEqualTo(0.3);
    }

    @Test
    void kv_headroom_is_one_cause_per_model_whose_full_context_does_not_fit() {
        Signals.Engine e = engine(1.0, 0.0, null, new Signals.Model("qwen", 32768.0, 4000.0),
                new Signals.Model("gemma", 8192.0, 500000.0));
        assertThat(onlyScore(Diagnosis.kvHeadroom(findings(CALM, e, QUIET)), "kv:mlx/qwen")).isEqualTo(0.4);
    }

    @Test
    void a_model_near_the_gpu_limit_is_a_cause_and_one_below_it_is_not() {
        Signals.Engine e = engine(1.0, 0.0, null, new Signals.Model("qwen", 32768.0, 16515.0, 0.95),
                new Signals.Model("gemma", 8192.0, 500000.0, 0.5), new Signals.Model("llama", 8192.0, 500000.0));
        // 0.5 + 4 x (0.95 - 0.9) = 0.7
        assertThat(onlyScore(Diagnosis.gpuLimit(findings(CALM, e, QUIET)), "gpu:mlx/qwen")).isEqualTo(0.7);
        assertThat(Diagnosis.gpuLimit(findings(CALM, e, QUIET))).singleElement()
                .satisfies(c -> assertThat(c.runbook()).isEqualTo("docs/runbook.md#GpuMemoryLimitNear"));
    }
}
