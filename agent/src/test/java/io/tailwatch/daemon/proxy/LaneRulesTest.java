package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.ProxyConfig;
import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.daemon.alerts.Alert;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.ProxyMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lane rules on the agent's own evaluator, over what a real {@link ProxyMeter} measured of requests
 * that passed (their timings set by hand, their SSE bytes read by the meter's stream tap): an interactive
 * lane with an SLO of 500 ms TTFT and a 90% target, and a batch lane without an SLO.
 */
class LaneRulesTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final long MS = 1_000_000L;
    private static final byte[] CHUNK = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private MetricHub hub;
    private ProxyMeter meter;
    private RuleEngine rules;

    @BeforeEach
    void setUp() {
        hub = new MetricHub();
        meter = new ProxyMeter("mlx", hub);
        meter.lanes(new Lanes(List.of(
                new ProxyConfig.Lane("interactive", "X-Lane", "interactive", null, null, null,
                        new ProxyConfig.Slo(Duration.ofMillis(500), null, 0.9)),
                new ProxyConfig.Lane("batch", "X-Lane", "batch", null, null, null, null))));
        rules = new RuleEngine(RulesConfig.defaults(), List.of(), hub, BaselineStore.open(dir.resolve("b.json")), 20,
                Duration.ofMinutes(15));
    }

    /** One streamed request of {@code lane} that ended just now: headers after {@code waitMs}, first token after {@code ttftMs}. */
    private void request(String lane, long waitMs, long ttftMs, long e2eMs) {
        long end = System.nanoTime();
        long t0 = end - e2eMs * MS;
        ProxyMeter.Exchange x = meter.begin(t0, lane, true);
        x.headers(t0 + waitMs * MS, 200, "text/event-stream");
        x.tap.bytes(CHUNK, 0, CHUNK.length, t0 + ttftMs * MS);
        x.tap.bytes(DONE, 0, DONE.length, end);
        x.tap.end(end);
        x.finish(end, ProxyOutcome.OK, null);
    }

    private void requests(int n, String lane, long waitMs, long ttftMs, long e2eMs) {
        for (int i = 0; i < n; i++) {
            request(lane, waitMs, ttftMs, e2eMs);
        }
    }

    /** Publishes the meter and evaluates every 30 s for {@code span}; the alerts by name. */
    private Map<String, Alert> run(Duration span) {
        Map<String, Alert> out = new TreeMap<>();
        for (Instant t = T0; !t.isAfter(T0.plus(span)); t = t.plusSeconds(30)) {
            meter.publish();
            rules.evaluate(t);
        }
        rules.alerts().forEach(a -> out.put(a.name(), a));
        return out;
    }

    @Test
    void slowInteractiveRequestsMissTheSloAndTheGoodputTargetAndBatchQueueing() {
        // 20 interactive requests: 4 within 500 ms, 16 at 800 ms -> p95 800 ms, goodput 4 / 20 = 20%
        requests(4, "interactive", 50, 200, 1000);
        requests(16, "interactive", 600, 800, 1500);
        // 5 batch requests, each waiting 3 s for the engine's headers
        requests(5, "batch", 3000, 3100, 9000);
        meter.publish();
        assertThat(hub.snapshot().value(ProxyMetrics.LANE_WINDOW_GOODPUT, "tailwatch.engine.name", "mlx", "tailwatch.lane",
                "interactive")).isEqualTo(0.2);
        Map<String, Alert> a = run(Duration.ofMinutes(10));
        assertThat(a.get("LaneSloMissed").state()).isEqualTo(AlertState.FIRING);
        assertThat(a.get("LaneSloMissed").labels()).containsEntry("tailwatch_lane", "interactive")
                .containsEntry("tailwatch_engine_name", "mlx");
        assertThat(a.get("LaneSloMissed").valueText()).isEqualTo("800 ms");
        assertThat(a.get("LaneGoodputLow").state()).isEqualTo(AlertState.FIRING);
        assertThat(a.get("LaneGoodputLow").valueText()).isEqualTo("20.0%");
        assertThat(a.get("LaneQueueWaitHigh").state()).isEqualTo(AlertState.FIRING);
        assertThat(a.get("LaneQueueWaitHigh").labels()).containsEntry("tailwatch_lane", "batch");
        assertThat(a.get("LaneQueueWaitHigh").valueText()).isEqualTo("3.00 s");
        assertThat(a.get("LaneGoodputLow").description()).contains("lane interactive", "20.0%");
    }

    @Test
    void lanesWithinTheirSloAndFewRequestsStaySilent() {
        // 19 slow interactive requests (one short of a meaningful p95), 4 slow batch ones: silent
        requests(19, "interactive", 600, 800, 1500);
        requests(4, "batch", 3000, 3100, 9000);
        assertThat(run(Duration.ofMinutes(11))).isEmpty();
        // within the SLO (p95 300 ms, every one good), batch waiting 1 s: silent
        setUp();
        requests(40, "interactive", 50, 300, 900);
        requests(10, "batch", 1000, 1100, 9000);
        assertThat(run(Duration.ofMinutes(11))).isEmpty();
    }

    @Test
    void aReloadThatGivesTheBatchLaneAnSloJudgesOnlyTheRequestsAfterIt() {
        // 40 slow batch requests while batch has no SLO: they meet nothing and miss nothing
        requests(40, "batch", 3000, 3100, 9000);
        meter.lanes(new Lanes(List.of(
                new ProxyConfig.Lane("interactive", "X-Lane", "interactive", null, null, null,
                        new ProxyConfig.Slo(Duration.ofMillis(500), null, 0.9)),
                new ProxyConfig.Lane("batch", "X-Lane", "batch", null, null, null,
                        new ProxyConfig.Slo(Duration.ofSeconds(5), null, 0.9)))));
        meter.publish();
        assertThat(hub.snapshot().value(ProxyMetrics.LANE_WINDOW_GOODPUT, "tailwatch.engine.name", "mlx", "tailwatch.lane",
                "batch")).isNull();
        // 25 batch requests after the reload, all within 5 s: goodput 100 %, not 25 / 65
        requests(25, "batch", 100, 1000, 2000);
        meter.publish();
        assertThat(hub.snapshot().value(ProxyMetrics.LANE_WINDOW_GOODPUT, "tailwatch.engine.name", "mlx", "tailwatch.lane",
                "batch")).isEqualTo(1.0);
        Map<String, Object> batch = lane(meter.status(), "batch");
        assertThat(batch).containsEntry("requests", 65L).containsEntry("within_slo", 25L).containsEntry("goodput", 1.0);
        assertThat(run(Duration.ofMinutes(11))).doesNotContainKey("LaneGoodputLow");
    }

    @Test
    void aLaneTheReloadRemovedLeavesTheOutputOnceItsLastRequestLeftTheWindow() {
        requests(3, "batch", 100, 200, 1000);
        meter.lanes(new Lanes(List.of(new ProxyConfig.Lane("interactive", "X-Lane", "interactive", null, null, null,
                new ProxyConfig.Slo(Duration.ofMillis(500), null, 0.9)))));
        long now = System.nanoTime();
        assertThat(meter.windowViews(now)).containsKey("batch");
        assertThat(meter.windowViews(now + LaneWindow.SPAN_NANOS + 1_000 * MS)).doesNotContainKey("batch");
        // a configured lane stays, empty, and so does the default one
        requests(1, "default", 100, 200, 1000);
        requests(1, "interactive", 100, 200, 1000);
        assertThat(meter.windowViews(System.nanoTime() + LaneWindow.SPAN_NANOS + 1_000 * MS))
                .containsKeys("interactive", "default").doesNotContainKey("batch");
    }

    @Test
    void theProxysLaneWindowSetsTheSpanAConfiguredLaneEmptiesAfter() throws Exception {
        ProxyConfig proxy = io.tailwatch.core.config.Config.parse("""
                engines:
                  - name: mlx
                    api: openai
                    url: http://127.0.0.1:8080
                    proxy:
                      listen: 127.0.0.1:8081
                      lane_window: 2s
                      lanes:
                        - {name: interactive, header: {name: X-Lane, value: interactive}, slo: {ttft_p95: 500ms, target: 0.9}}
                """, "test", Map.of()).engine("mlx").proxy();
        assertThat(proxy.laneWindow()).isEqualTo(Duration.ofSeconds(2));
        meter.lanes(new Lanes(proxy));
        requests(3, "interactive", 50, 200, 1000);
        long now = System.nanoTime();
        LaneWindow.View held = meter.windowViews(now + 1_500 * MS).get("interactive");
        assertThat(held.requests()).isEqualTo(3);
        assertThat(held.ttftP95()).isEqualTo(0.2);
        // the default span (5 minutes) still holds them 2.5 s on
        meter.lanes(new Lanes(proxy.lanes()));
        assertThat(meter.windowViews(now + 2_500 * MS).get("interactive").requests()).isEqualTo(3);
        // with lane_window 2s the configured lane is still there, empty: no percentile, no goodput (absent, not 0)
        meter.lanes(new Lanes(proxy));
        LaneWindow.View emptied = meter.windowViews(now + 2_500 * MS).get("interactive");
        assertThat(emptied.requests()).isZero();
        assertThat(emptied.ttftP95()).isNaN();
        assertThat(emptied.goodput()).isNaN();
        assertThat(emptied.inFlight()).isZero();
        assertThat(io.tailwatch.core.config.Config.parse("engines:\n  - {name: mlx, api: openai, url: http://127.0.0.1:8080,"
                + " proxy: {listen: 127.0.0.1:8081}}\n", "test", Map.of()).engine("mlx").proxy().laneWindow())
                .isEqualTo(Duration.ofMinutes(5));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> lane(Map<String, Object> status, String name) {
        return ((List<Map<String, Object>>) status.get("lanes")).stream().filter(l -> name.equals(l.get("lane"))).findFirst()
                .orElseThrow();
    }

    @Test
    void aProxyWithoutRequestsExportsNoLaneWindowAndPagesNobody() {
        assertThat(meter.points()).noneMatch(p -> p.metric().name().startsWith("tailwatch.proxy.lane.window."));
        assertThat(run(Duration.ofMinutes(11))).isEmpty();
    }
}
