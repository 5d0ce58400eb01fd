package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.Signals;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Timeouts on a one-slot server under load: the engine's own queue says 3 waiting. diagnose ranks
 * queueing first and cites the queue, rather than a proxy timeout or a model load.
 */
class DiagnosisQueuedTimeoutsTest {
    private static final double GIB = 1L << 30;
    private static final Signals.Host CALM = new Signals.Host(0.0, 0.0, 0.0, 8 * GIB, 64 * GIB, 0.0, 1.0);

    /** A window whose failed probes are not in its percentiles: no baseline, p95 of the ones that made it. */
    private static Signals.Window failing() {
        return new Signals.Window("llamacpp", "tiny.gguf", "interactive", 2.0, 2.4, 2.5, 0.3, 0.4, 0.5, 0.4, 10.0, null,
                20.0, true);
    }

    private static Signals signals(Signals.Queue q) {
        return new Signals(CALM, List.of(new Signals.Engine("llamacpp", 1.0, 0.0, 2 * GIB, null, List.of(), q)),
                List.of(failing()));
    }

    @Test
    void timeoutsWithRequestsWaitingInTheEngineAreQueueingCitingTheQueue() {
        for (String failure : List.of("total_timeout", "first_token_timeout", "cut")) {
            List<Diagnosis.Cause> ranked = Diagnosis.rank(signals(new Signals.Queue(1.0, 3.0, null, null, null)), null,
                    Map.of("llamacpp", List.of(failure, failure, failure, "http_500")));
            assertThat(ranked.get(0).id()).as(failure).isEqualTo("queueing");
            assertThat(ranked.get(0).figures()).anySatisfy(f -> assertThat(f).contains("llamacpp queue: 3 waiting, 1 running"));
            assertThat(ranked.get(0).figures()).anySatisfy(f -> assertThat(f).contains(failure + " x3"));
            Diagnosis.Cause errors = ranked.stream().filter(c -> c.id().startsWith("errors")).findFirst().orElseThrow();
            assertThat(errors.score()).isLessThan(ranked.get(0).score());
        }
    }

    @Test
    void anEstimatedQueueWaitCountsWhereTheEngineGivesNoCount() {
        List<Diagnosis.Cause> ranked = Diagnosis.rank(signals(new Signals.Queue(null, null, null, 2.1, "estimate")), null,
                Map.of("llamacpp", List.of("total_timeout", "total_timeout")));
        assertThat(ranked.get(0).id()).isEqualTo("queueing");
        assertThat(ranked.get(0).figures()).anySatisfy(f -> assertThat(f).contains("wait 2.10 s (estimate)"));
    }

    @Test
    void withAnEmptyQueueTheTimeoutsPointElsewhere() {
        List<Diagnosis.Cause> ranked = Diagnosis.rank(signals(new Signals.Queue(1.0, 0.0, null, null, null)), null,
                Map.of("llamacpp", List.of("total_timeout", "total_timeout")));
        assertThat(ranked).extracting(Diagnosis.Cause::id).doesNotContain("queueing");
        assertThat(ranked.get(0).id()).isEqualTo("errors");
        // and a busy queue behind HTTP 500s is not what failed them
        List<Diagnosis.Cause> engine = Diagnosis.rank(signals(new Signals.Queue(1.0, 3.0, null, null, null)), null,
                Map.of("llamacpp", List.of("http_500", "http_500")));
        assertThat(engine.get(0).id()).isEqualTo("errors:engine");
    }
}
