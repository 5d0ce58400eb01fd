package io.tailwatch.tools.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.tools.capacity.LadderResult;
import io.tailwatch.tools.capacity.LevelResult;
import io.tailwatch.tools.capacity.StopRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The history records a ladder leaves: the run, and its clean concurrency-1 step as a baseline. */
class RunRecordsTest {
    static final Instant T0 = Instant.parse("2026-11-29T08:00:00Z");

    static ProbeResult ok(double e2e) {
        return new ProbeResult(true, null, null, T0, "m", 0.01, e2e / 4, e2e, 40.0, 100L, 64L, "engine", null, null, null,
                null, List.of());
    }

    static ProbeResult failed() {
        return new ProbeResult(false, "http_500", "HTTP 500", T0, "m", null, null, 0.05, null, null, null, null, null,
                null, null, null, List.of());
    }

    static LevelResult step(int concurrency, int errors, double... e2e) {
        List<ProbeResult> rs = new ArrayList<>();
        for (double v : e2e) {
            rs.add(ok(v));
        }
        for (int i = 0; i < errors; i++) {
            rs.add(failed());
        }
        return new LevelResult(concurrency, rs.size(), rs, true, T0.plusSeconds(concurrency),
                T0.plusSeconds(10L * concurrency), null, null, null);
    }

    @Test
    void a_ladder_with_a_clean_first_step_stores_the_run_and_the_baseline() throws Exception {
        StopRules.Stop stop = new StopRules.Stop(2, StopRules.P95_RATIO, 3.5, 3.0, "p95 3.5x");
        LadderResult r = new LadderResult(null, T0, T0.plusSeconds(90), null, ok(1.0),
                List.of(step(1, 0, 1.0, 2.0, 3.0, 4.0), step(2, 0, 9.0, 10.0)), stop, List.of(stop), false, true);
        List<RunRecord> records = RunRecords.ladder("studio-1", "mlx", null, r, "{\"levels\":[]}");
        assertThat(records).extracting(RunRecord::kind).containsExactly("ladder", "baseline");

        RunRecord ladder = records.get(0);
        assertThat(ladder.startedAt()).isEqualTo(T0);
        assertThat(ladder.endedAt()).isEqualTo(T0.plusSeconds(90));
        assertThat(ladder.model()).isEmpty();
        assertThat(ladder.headline()).isEqualTo(r.first().e2e().p95());
        assertThat(ladder.outcome()).isEqualTo(StopRules.P95_RATIO + " at 2");
        assertThat(ladder.summary()).isEqualTo("{\"levels\":[]}");

        RunRecord baseline = records.get(1);
        assertThat(baseline.startedAt()).isEqualTo(T0.plusSeconds(1));
        assertThat(baseline.headline()).isCloseTo(2.5, within(1e-9)); // the average of 1, 2, 3 and 4 s
        assertThat(baseline.unit()).isEqualTo("s");
        assertThat(baseline.outcome()).isEqualTo("from ladder");
        JsonNode b = Json.MAPPER.readTree(baseline.summary());
        assertThat(b.get("requests").asInt()).isEqualTo(4);
        assertThat(b.get("avg_seconds").asDouble()).isCloseTo(2.5, within(1e-9));
        assertThat(b.get("p95_seconds").asDouble()).isEqualTo(r.first().e2e().p95());
        assertThat(b.get("decode_tokens_per_second").asDouble()).isEqualTo(40.0);
    }

    @Test
    void a_ladder_whose_first_step_had_an_error_stores_no_baseline() {
        LadderResult r = new LadderResult(null, T0, T0.plusSeconds(30), null, ok(1.0), List.of(step(1, 1, 1.0, 2.0)),
                null, List.of(), false, true);
        List<RunRecord> records = RunRecords.ladder("studio-1", "mlx", "gemma", r, "{}");
        assertThat(records).extracting(RunRecord::kind).containsExactly("ladder");
        assertThat(records.get(0).outcome()).isEqualTo("no stop");
        assertThat(records.get(0).model()).isEqualTo("gemma");
    }

    @Test
    void the_kinds_are_the_three_the_history_keeps() {
        assertThat(RunRecords.KINDS).containsExactly("ladder", "bench", "baseline");
    }
}
