package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.kv.KvCacheMath;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The engine clients against the simulator on loopback: both wire formats, inventory, queueing, loads, faults. */
class EngineSimulatorTest {
    static ProbeRequest request(String model, int maxTokens) {
        return new ProbeRequest(model, 64, maxTokens, 0.0, Duration.ofSeconds(10),
                Duration.ofSeconds(20));
    }

    static EngineClient client(EngineSimulator sim) {
        return EngineClients.create(sim.api(), URI.create("http://127.0.0.1:" + sim.port()), null);
    }

    @Test
    void openAiProbeMeasuresUsageTtftAndDecodeRate() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(300), 100);
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o); EngineClient c = client(sim)) {
            ProbeResult r = c.probe(request(null, 20));
            assertThat(r.success()).as(r.errorMessage()).isTrue();
            // An mlx_lm probe without a configured model names none (no model swap), and the served model answers.
            assertThat(r.model()).isEqualTo(EngineClient.UNNAMED_MODEL);
            assertThat(r.responseModel()).isEqualTo(o.model());
            assertThat(r.tokenSource()).isEqualTo("usage");
            assertThat(r.outputTokens()).isEqualTo(20L);
            assertThat(r.inputTokens()).isGreaterThan(40L);
            assertThat(r.cachedTokens()).isEqualTo(0L);
            // TTFT counts the first non-empty content, not the role chunk sent with the headers.
            assertThat(r.ttftSeconds()).isBetween(0.3, 3.0);
            assertThat(r.ttftSeconds() - r.timeToHeadersSeconds()).isGreaterThan(0.2);
            // Loose bounds: a busy CPU can delay reads, but the order of magnitude must be right.
            assertThat(r.decodeTokensPerSecond()).isBetween(40.0, 200.0);
            assertThat(r.chunkGapsSeconds()).hasSize(19);
            assertThat(r.serverPromptSeconds()).isNull();
            var sent = sim.requests().get(sim.requests().size() - 1);
            assertThat(sent.path("stream").asBoolean()).isTrue();
            assertThat(sent.path("stream_options").path("include_usage").asBoolean()).isTrue();
            assertThat(sent.path("temperature").asDouble()).isEqualTo(0.0);
            assertThat(sent.path("max_tokens").asInt()).isEqualTo(20);
        }
    }

    @Test
    void everyPromptCarriesAFreshNonce() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ZERO, 1000)); EngineClient c = client(sim)) {
            c.probe(request(null, 2));
            c.probe(request(null, 2));
            var reqs = sim.requests();
            String a = reqs.get(reqs.size() - 2).at("/messages/0/content").asText();
            String b = reqs.get(reqs.size() - 1).at("/messages/0/content").asText();
            assertThat(a).isNotEqualTo(b);
            assertThat(a.split("\\s+").length).isEqualTo(b.split("\\s+").length);
        }
    }

    @Test
    void ollamaProbeReportsServerTimingsAndColdLoad() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(100), 200)
                .withLoadTime(Duration.ofMillis(400));
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o); EngineClient c = client(sim)) {
            ProbeResult cold = c.probe(request(o.model(), 10));
            assertThat(cold.success()).as(cold.errorMessage()).isTrue();
            assertThat(cold.tokenSource()).isEqualTo("engine");
            assertThat(cold.outputTokens()).isEqualTo(10L);
            assertThat(cold.loadSeconds()).isBetween(0.4, 3.0);
            assertThat(cold.serverPromptSeconds()).isBetween(0.09, 2.0);
            // A loose band: the exact rate is the accuracy benchmark's job (docs/performance.md), not a unit test's.
            assertThat(cold.serverDecodeTokensPerSecond()).isBetween(50.0, 400.0);
            ProbeResult warm = c.probe(request(o.model(), 10));
            assertThat(warm.loadSeconds()).isLessThan(0.05);
            assertThat(warm.e2eSeconds()).isLessThan(cold.e2eSeconds() - 0.3);
        }
    }

    @Test
    void ollamaHealthListsLoadedModelsWithKvShape() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("ollama");
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o); EngineClient c = client(sim)) {
            EngineHealth h = c.health(Duration.ofSeconds(3));
            assertThat(h.up()).isTrue();
            assertThat(h.version()).isEqualTo("0.12.6");
            assertThat(h.provider()).isEqualTo("ollama");
            assertThat(h.models()).hasSize(1);
            var m = h.models().get(0);
            assertThat(m.name()).isEqualTo(o.model());
            assertThat(m.contextLength()).isEqualTo(4096L);
            assertThat(m.vramBytes()).isPositive();
            assertThat(m.shape()).isNotNull();
            assertThat(KvCacheMath.bytesPerToken(m.shape(), 2.0)).isEqualTo(131072.0);
            assertThat(c.defaultModel(Duration.ofSeconds(1))).isEqualTo(o.model());
        }
    }

    @Test
    void openAiHealthReportsLoadingThenUp() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withLoadTime(Duration.ofMillis(800));
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o); EngineClient c = client(sim)) {
            EngineHealth h = c.health(Duration.ofSeconds(2));
            assertThat(h.up()).isTrue();
            assertThat(h.loading()).isTrue();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> !c.health(Duration.ofSeconds(2)).loading());
            EngineHealth ok = c.health(Duration.ofSeconds(2));
            assertThat(ok.provider()).isEqualTo("mlx_lm");
            assertThat(ok.models()).extracting(x -> x.name()).containsExactly(o.model());
        }
    }

    @Test
    void oneSlotQueuesRequestsAndHoldsTheirHeaders() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(200), 50);
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o); EngineClient c = client(sim)) {
            List<CompletableFuture<ProbeResult>> all = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                all.add(CompletableFuture.supplyAsync(() -> c.probe(request(o.model(), 10))));
            }
            List<Double> headers = new ArrayList<>();
            for (var f : all) {
                ProbeResult r = f.get();
                assertThat(r.success()).as(r.errorMessage()).isTrue();
                headers.add(r.timeToHeadersSeconds());
            }
            headers.sort(Double::compare);
            // Each generation takes 0.2 s + 9 x 20 ms = 0.38 s; the queued ones get headers only after it.
            assertThat(headers.get(0)).isLessThan(headers.get(1));
            assertThat(headers.get(1)).isGreaterThan(0.3);
            assertThat(headers.get(2)).isGreaterThan(0.65);
            assertThat(sim.maxConcurrent()).isEqualTo(1);
        }
    }

    @Test
    void errorRateAnswers500AndStallsShowAsChunkGaps() throws Exception {
        SimulatorOptions failing = SimulatorOptions.defaults("openai").withFaults(1.0, 0, Duration.ZERO);
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, failing); EngineClient c = client(sim)) {
            ProbeResult r = c.probe(request(failing.model(), 5));
            assertThat(r.success()).isFalse();
            assertThat(r.errorType()).isEqualTo("http_500");
            assertThat(r.errorMessage()).contains("simulated server error");
        }
        SimulatorOptions stalling = SimulatorOptions.defaults("ollama").withTiming(Duration.ZERO, 200)
                .withFaults(0, 1.0, Duration.ofMillis(500));
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, stalling); EngineClient c = client(sim)) {
            ProbeResult r = c.probe(request(stalling.model(), 10));
            assertThat(r.success()).isTrue();
            assertThat(r.chunkGapsSeconds().stream().mapToDouble(Double::doubleValue).max().orElse(0)).isGreaterThan(0.45);
        }
    }

    @Test
    void unknownModelIsHttp404() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"));
             EngineClient c = client(sim)) {
            ProbeResult r = c.probe(request("nope:1b", 5));
            assertThat(r.errorType()).isEqualTo("http_404");
            assertThat(r.errorMessage()).contains("not found");
        }
    }

    /** With a stall schedule every n-th generation stalls, halfway through its tokens, and no other. */
    @Test
    void aStallScheduleStallsEveryNthGenerationAndNoOther() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withFaults(0, 1.0, Duration.ofMillis(1))
                .withStallEvery(4, Duration.ofMillis(500));
        assertThat(o.stallRate()).as("no random stalls beside the schedule").isZero();
        assertThat(o.stall()).isEqualTo(Duration.ofMillis(500));
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o)) {
            java.util.List<Integer> at = new java.util.ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                at.add(sim.drawStall(8));
            }
            assertThat(at).containsExactly(-1, -1, -1, 4, -1, -1, -1, 4, -1, -1, -1, 4);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SimulatorOptions.defaults("openai").withStallEvery(-1, Duration.ZERO))
                .hasMessageContaining("stall schedule");
    }
}
