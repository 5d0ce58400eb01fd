package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.Signals;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's own queue figures reach the signals that status and diagnose read; unknown stays null. */
class SignalsQueueTest {
    @Test
    void queueFiguresAreReadPerEngineAndMeasuredWaitWinsOverEstimate() {
        MetricSnapshot snap = new MetricSnapshot(Instant.EPOCH, List.of(
                Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, "vllm"),
                Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, "ollama"),
                Point.of(EngineMetrics.UP, 1, AttrKeys.ENGINE, "plain"),
                Point.of(EngineSideMetrics.REQUESTS, 3, AttrKeys.ENGINE, "vllm", AttrKeys.REQUEST_STATE, "running"),
                Point.of(EngineSideMetrics.REQUESTS, 5, AttrKeys.ENGINE, "vllm", AttrKeys.REQUEST_STATE, "waiting"),
                Point.of(EngineSideMetrics.KV_CACHE_USAGE, 0.8, AttrKeys.ENGINE, "vllm"),
                Point.of(EngineSideMetrics.QUEUE_WAIT, 0.9, AttrKeys.ENGINE, "vllm", AttrKeys.QUEUE_WAIT_SOURCE, "estimate"),
                Point.of(EngineSideMetrics.QUEUE_WAIT, 1.2, AttrKeys.ENGINE, "vllm", AttrKeys.QUEUE_WAIT_SOURCE, "measured"),
                Point.of(EngineSideMetrics.QUEUE_WAIT, 0.3, AttrKeys.ENGINE, "ollama", AttrKeys.QUEUE_WAIT_SOURCE, "estimate")));
        Signals s = Signals.of(snap, null, List.of());
        assertThat(s.engine("vllm").queue()).isEqualTo(new Signals.Queue(3.0, 5.0, 0.8, 1.2, "measured"));
        assertThat(s.engine("ollama").queue()).isEqualTo(new Signals.Queue(null, null, null, 0.3, "estimate"));
        assertThat(s.engine("plain").queue()).as("no figures: no queue, not zeros").isNull();
    }

    @Test
    void queueSurvivesTheStatusJsonThatTheCliReads() throws Exception {
        Signals s = new Signals(Signals.EMPTY.host(), List.of(new Signals.Engine("ollama", 1.0, null, null, null, List.of(),
                new Signals.Queue(null, 0.0, null, 0.05, "estimate"))), List.of());
        String json = io.tailwatch.core.json.Json.MAPPER.writeValueAsString(s);
        assertThat(json).contains("\"queue\":{\"waiting\":0.0,\"wait_seconds\":0.05,\"wait_source\":\"estimate\"}");
        assertThat(io.tailwatch.core.json.Json.MAPPER.readValue(json, Signals.class).engine("ollama").queue())
                .isEqualTo(new Signals.Queue(null, 0.0, null, 0.05, "estimate"));
    }
}
