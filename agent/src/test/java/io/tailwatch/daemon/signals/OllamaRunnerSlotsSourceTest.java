package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.host.EngineRunners;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Ollama source over runners that are the simulator's llama.cpp flavour on loopback ports: sums of busy and
 * total slots, absent figures without runners or beside a runner without /slots (an MLX runner), and a classified
 * failure (never a partial sum) when a runner cannot be read.
 */
class OllamaRunnerSlotsSourceTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20); // a loaded 2-core machine can be slow to answer

    private static EngineSimulator runner(int slots) throws Exception {
        return EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withSlots(slots).withTiming(Duration.ofMillis(10), 20));
    }

    @Test
    void busyAndTotalSlotsAreSummedOverTheRunners() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        try (EngineSimulator a = runner(2); EngineSimulator b = runner(1)) {
            OllamaRunnerSlotsSource s = new OllamaRunnerSlotsSource(() -> List.of(new EngineRunners.Runner(10, a.port(), 2),
                    new EngineRunners.Runner(11, b.port(), null)), Duration.ofSeconds(10));
            EngineSignals idle = s.read(DEADLINE);
            assertThat(idle.running()).isEqualTo(0.0);
            assertThat(idle.details()).containsEntry("slots_total", 3L).containsEntry("slots_processing", 0L)
                    .containsEntry("slots_source", OllamaRunnerSlotsSource.SLOTS_SOURCE).containsEntry("runners_found", 2);

            // 200 tokens at 20/s: generating for 10 s unless cancelled
            CompletableFuture<HttpResponse<Void>> busy = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + a.port() + "/completion")).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"prompt\":\"x\",\"n_predict\":200,\"stream\":true}")).build(), HttpResponse.BodyHandlers.discarding());
            try {
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(s.read(DEADLINE).running()).isEqualTo(1.0));
                EngineSignals one = s.read(DEADLINE);
                assertThat(one.details()).containsEntry("slots_total", 3L).containsEntry("slots_processing", 1L);
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> listed = (List<Map<String, Object>>) one.details().get("runners");
                assertThat(listed).extracting(m -> m.get("port")).containsExactly(a.port(), b.port());
                assertThat(listed).extracting(m -> m.get("processing")).containsExactly(1L, 0L);
                assertThat(listed).extracting(m -> m.get("declared_slots")).containsExactly(2, null);
            } finally {
                busy.cancel(true);
            }
        }
    }

    @Test
    void withoutRunnersTheFiguresAreAbsentAndTheRunnersAreLookedForAgain() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        OllamaRunnerSlotsSource s = new OllamaRunnerSlotsSource(() -> {
            lookups.incrementAndGet();
            return List.of();
        }, Duration.ofSeconds(10));
        EngineSignals none = s.read(DEADLINE);
        assertThat(none.running()).isNull();
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.details()).containsEntry("runners_found", 0).doesNotContainKey("slots_total");
        s.read(DEADLINE);
        assertThat(lookups).hasValue(2);
    }

    @Test
    void aRunnerThatCannotBeReadFailsTheWholeReadingClassified() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        try (EngineSimulator ok = runner(2); EngineSimulator notLlama = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama"))) {
            int gone;
            try (EngineSimulator g = runner(1)) {
                gone = g.port();
            }
            OllamaRunnerSlotsSource refused = new OllamaRunnerSlotsSource(() -> {
                lookups.incrementAndGet();
                return List.of(new EngineRunners.Runner(1, ok.port(), 2), new EngineRunners.Runner(2, gone, 1));
            }, Duration.ofSeconds(10));
            assertThatThrownBy(() -> refused.read(DEADLINE)).isInstanceOfSatisfying(SignalFailure.class,
                    f -> assertThat(f.errorType()).isEqualTo("connect_refused"));
            // a runner that went away makes the next read look for the runners again
            assertThatThrownBy(() -> refused.read(DEADLINE)).isInstanceOf(SignalFailure.class);
            assertThat(lookups).hasValue(2);

            // a runner without /slots (Ollama's own API here answers 404 there, as an MLX runner does) beside a
            // llama.cpp one: not a failure, but the sum would undercount, so the figures are unknown and it is named
            OllamaRunnerSlotsSource noSlots = new OllamaRunnerSlotsSource(() -> List.of(new EngineRunners.Runner(1, ok.port(), 2),
                    new EngineRunners.Runner(3, notLlama.port(), null)), Duration.ofSeconds(10));
            EngineSignals mixed = noSlots.read(DEADLINE);
            assertThat(mixed.running()).isNull();
            assertThat(mixed.isEmpty()).isTrue();
            assertThat(mixed.details()).containsEntry("runners_without_slots", List.of(notLlama.port()))
                    .containsEntry("runners_found", 2).doesNotContainKey("slots_total");
        }
    }

    @Test
    void aFailingProcessTableIsAClassifiedFailure() {
        OllamaRunnerSlotsSource s = new OllamaRunnerSlotsSource(() -> {
            throw new java.io.IOException("permission denied");
        }, Duration.ofSeconds(10));
        assertThatThrownBy(() -> s.read(DEADLINE)).isInstanceOfSatisfying(SignalFailure.class,
                f -> assertThat(f.errorType()).isEqualTo("_OTHER"));
    }
}
