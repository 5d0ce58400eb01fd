package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.probe.ProbeResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The single-request baseline step: one criterion for the history's baseline record and --save-baseline. */
class LadderResultTest {
    static final Instant T0 = Instant.parse("2026-11-29T08:00:00Z");

    static ProbeResult ok(double e2e) {
        return new ProbeResult(true, null, null, T0, "m", 0.01, 0.2, e2e, 40.0, 100L, 64L, "engine", null, null, null,
                null, List.of());
    }

    static ProbeResult failed() {
        return new ProbeResult(false, "http_500", "HTTP 500 from engine", T0, "m", null, null, 0.05, null, null, null,
                null, null, null, null, null, List.of());
    }

    /** A step at {@code concurrency} of {@code ok} successful requests (1.0, 1.1, ... s) and {@code errors} failures. */
    static LevelResult step(int concurrency, int ok, int errors, boolean complete) {
        List<ProbeResult> rs = new ArrayList<>();
        for (int i = 0; i < ok; i++) {
            rs.add(ok(1.0 + i / 10.0));
        }
        for (int i = 0; i < errors; i++) {
            rs.add(failed());
        }
        return new LevelResult(concurrency, ok + errors, rs, complete, T0, T0.plusSeconds(10), null, null, null);
    }

    static LadderResult ladder(LevelResult... levels) {
        return new LadderResult(null, T0, T0.plusSeconds(60), null, ok(1.0), List.of(levels), null, List.of(), false,
                true);
    }

    @Test
    void the_clean_concurrency_one_step_is_the_baseline() {
        LevelResult one = step(1, 5, 0, true);
        LadderResult r = ladder(one, step(2, 6, 0, true));
        assertThat(r.baselineStep()).isSameAs(one);
        // five requests of 1.0 .. 1.4 s: the figures describe the step's requests
        assertThat(r.baselineStep().e2e().mean()).isEqualTo(1.2, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(r.baselineStep().e2e().p95()).isBetween(1.3, 1.4);
    }

    @Test
    void a_step_with_an_error_is_no_baseline() {
        assertThat(ladder(step(1, 4, 1, true), step(2, 6, 0, true)).baselineStep()).isNull();
    }

    @Test
    void a_step_cut_short_is_no_baseline() {
        assertThat(ladder(step(1, 3, 0, false)).baselineStep()).isNull();
    }

    @Test
    void a_step_without_requests_is_no_baseline() {
        // complete and error-free, but nothing measured
        assertThat(ladder(step(1, 0, 0, true)).baselineStep()).isNull();
    }

    @Test
    void a_ladder_starting_above_one_has_no_baseline_though_it_has_a_first_step() {
        LadderResult r = ladder(step(2, 6, 0, true), step(4, 12, 0, true));
        assertThat(r.first()).isNotNull();
        assertThat(r.baselineStep()).isNull();
    }

    @Test
    void never_answered_needs_a_failed_warm_up_and_every_request_failed() {
        LadderResult allFailed = new LadderResult(null, T0, T0, null, failed(), List.of(step(1, 0, 5, true)), null,
                List.of(), false, true);
        assertThat(allFailed.neverAnswered()).isTrue();
        LadderResult oneAnswered = new LadderResult(null, T0, T0, null, failed(), List.of(step(1, 1, 4, true)), null,
                List.of(), false, true);
        assertThat(oneAnswered.neverAnswered()).isFalse();
        assertThat(ladder(step(1, 0, 5, true)).neverAnswered()).isFalse();
    }
}
