package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class HeaderTimeEstimateTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static ProbeResult probe(String model, Double headers, Double load, Long inputTokens, String error) {
        return new ProbeResult(error == null, error, error, T0, model, headers, headers == null ? null : headers + 0.05,
                1.0, 30.0, 16L, inputTokens, "usage", null, null, null, load, List.of());
    }

    @Test
    void theWaitIsHeaderTimeAboveTheRecentFloorLessModelLoad() {
        HeaderTimeEstimate e = new HeaderTimeEstimate(Duration.ofMinutes(3), Clock.fixed(T0, java.time.ZoneOffset.UTC));
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).as("no probe yet: unknown").isNull();
        e.onProbe(probe("m", 0.30, null, 64L, null));
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).as("the first probe is its own floor").isZero();
        e.onProbe(probe("m", 1.30, null, 64L, null));
        EngineSignals s = e.read(Duration.ofSeconds(1));
        assertThat(s.queueWaitSeconds()).isCloseTo(1.0, Offset.offset(1e-9));
        assertThat(s.queueWaitSource()).isEqualTo("estimate");
        assertThat(s.details()).containsEntry("estimate_floor_seconds", 0.30);
        // Ollama reports the model load inside its header time; it is not queue wait.
        e.onProbe(probe("m", 5.35, 5.0, 64L, null));
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).isCloseTo(0.05, Offset.offset(1e-9));
        // A much longer prompt (other size class) has its own floor: its prefill is not queue wait.
        e.onProbe(probe("m", 2.0, null, 4000L, null));
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).isZero();
        // A probe that got no headers leaves the figure unknown, never 0.
        e.onProbe(probe("m", null, null, null, "connect_refused"));
        EngineSignals none = e.read(Duration.ofSeconds(1));
        assertThat(none.queueWaitSeconds()).isNull();
        assertThat(none.details().get("estimate_note").toString()).contains("connect_refused");
    }

    @Test
    void theFloorForgetsOldProbesAndAnOldEstimateExpires() {
        Clock[] clock = {Clock.fixed(T0, java.time.ZoneOffset.UTC)};
        HeaderTimeEstimate e = new HeaderTimeEstimate(Duration.ofMinutes(3), new Clock() {
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            public Clock withZone(java.time.ZoneId z) {
                return this;
            }

            public Instant instant() {
                return clock[0].instant();
            }
        });
        e.onProbe(probe("m", 0.01, null, 64L, null));
        for (int i = 0; i < HeaderTimeEstimate.FLOOR_WINDOW; i++) {
            e.onProbe(probe("m", 0.5, null, 64L, null));
        }
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).as("the 0.01 s probe has left the window").isZero();
        clock[0] = Clock.fixed(T0.plus(Duration.ofMinutes(4)), java.time.ZoneOffset.UTC);
        assertThat(e.read(Duration.ofSeconds(1)).queueWaitSeconds()).as("no probe for longer than the bound").isNull();
    }

    /**
     * A serial engine (one slot; headers go out only when the slot takes the request, as with
     * mlx_lm.server) given concurrent requests: the real client's probes wait for the slot, and the
     * estimate rises from about 0 to the backlog ahead of them.
     */
    @Test
    void theEstimateRisesWhenASerialEngineIsGivenConcurrentRequests() throws Exception {
        SimulatorOptions opts = SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(40), 100).withSlots(1)
                .withSeed(7);
        ExecutorService background = Executors.newFixedThreadPool(3);
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, opts);
             EngineClient client = EngineClients.create("openai", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            EngineConfig cfg = Config.parse("engines:\n  - name: serial\n    api: openai\n    url: http://127.0.0.1:"
                    + sim.port() + "\n", "test", Map.of()).engines().get(0);
            MetricHub hub = new MetricHub();
            EngineSignalMonitor monitor = new EngineSignalMonitor(List.of(cfg), hub, Clock.systemUTC());
            EngineSignalWatch watch = monitor.watch("serial");
            watch.poll();
            assertThat(watch.state().detection().onlyEstimate()).as("the simulator exposes no queue figures").isTrue();

            for (int i = 0; i < 2; i++) {
                ProbeResult idle = client.probe(request(4));
                assertThat(idle.success()).isTrue();
                monitor.onProbe("serial", idle);
            }
            double idleEstimate = hub.snapshot().value(EngineSideMetrics.QUEUE_WAIT, AttrKeys.ENGINE, "serial", AttrKeys.QUEUE_WAIT_SOURCE, "estimate");
            assertThat(idleEstimate).isLessThan(0.1);

            // Three requests of about 0.25 s each occupy the only slot; the probe queues behind them.
            long servedBefore = sim.served();
            int bodiesBefore = sim.requests().size();
            List<Future<ProbeResult>> busy = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                busy.add(background.submit(() -> client.probe(request(20))));
            }
            // All three have reached the engine and one holds the slot before the probe is sent.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> sim.requests().size() >= bodiesBefore + 3 && sim.served() > servedBefore);
            ProbeResult queued = client.probe(request(4));
            assertThat(queued.success()).isTrue();
            monitor.onProbe("serial", queued);
            double busyEstimate = hub.snapshot().value(EngineSideMetrics.QUEUE_WAIT, AttrKeys.ENGINE, "serial", AttrKeys.QUEUE_WAIT_SOURCE, "estimate");
            assertThat(busyEstimate).as("waited for at least most of the backlog").isGreaterThan(0.3)
                    .isGreaterThan(idleEstimate + 0.25)
                    .isCloseTo(queued.timeToHeadersSeconds(), Offset.offset(0.1));
            for (Future<ProbeResult> f : busy) {
                assertThat(f.get().success()).isTrue();
            }
            assertThat(sim.maxConcurrent()).isEqualTo(1);
            assertThat(EngineSignalStatus.of(watch)).containsEntry("queue_wait_source", "estimate");
            monitor.close();
        } finally {
            background.shutdownNow();
        }
    }

    static ProbeRequest request(int maxTokens) {
        return new ProbeRequest(null, 16, maxTokens, 0.0, Duration.ofSeconds(10),
                Duration.ofSeconds(15));
    }
}
