package io.tailwatch.daemon.signals;

import io.tailwatch.core.probe.InputRange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.probe.InputRange;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every source against a real loopback server answering captured-style bodies, good and broken. */
class EngineSignalSourcesTest {
    static final Duration DEADLINE = Duration.ofSeconds(3);
    FakeEngine engine;

    @BeforeEach
    void start() throws IOException {
        engine = new FakeEngine();
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void llamaCppSlotsCountTheBusySlotsInBothLayouts() throws Exception {
        engine.json("/slots", FakeEngine.resource("llamacpp-slots.json"));
        EngineSignals s = new LlamaCppSlotsSource(engine.endpoint()).read(DEADLINE);
        assertThat(s.running()).isEqualTo(2.0);
        assertThat(s.waiting()).as("/slots does not show the queue").isNull();
        assertThat(s.details()).containsEntry("slots_total", 3).containsEntry("slots_processing", 2);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> slots = (List<Map<String, Object>>) s.details().get("slots");
        assertThat(slots.get(0)).containsEntry("n_ctx", 8192L).containsEntry("n_decoded", 143L)
                .containsEntry("processing", true);

        engine.json("/slots", FakeEngine.resource("llamacpp-slots-old.json"));
        EngineSignals old = new LlamaCppSlotsSource(engine.endpoint()).read(DEADLINE);
        assertThat(old.running()).isEqualTo(1.0);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> oldSlots = (List<Map<String, Object>>) old.details().get("slots");
        assertThat(oldSlots.get(0)).containsEntry("n_decoded", 12L);
    }

    @Test
    void llamaCppMetricsGiveProcessingDeferredAndKvUse() throws Exception {
        engine.prometheus("/metrics", FakeEngine.resource("llamacpp-metrics.txt"));
        EngineSignals s = new PrometheusTextSource(engine.endpoint()).read(DEADLINE);
        assertThat(s.running()).isEqualTo(2.0);
        assertThat(s.waiting()).isEqualTo(5.0);
        assertThat(s.kvCacheUsage()).isEqualTo(0.3125);
        assertThat(s.queueWaitSeconds()).isNull();
        assertThat(s.details()).containsEntry("llamacpp:kv_cache_tokens", 5120.0)
                .containsEntry("families", List.of("llamacpp"));
    }

    @Test
    void vllmMetricsSumTheEnginesAndMeasureQueueWaitBetweenReads() throws Exception {
        String first = FakeEngine.resource("vllm-metrics.txt");
        engine.prometheus("/metrics", first);
        PrometheusTextSource src = new PrometheusTextSource(engine.endpoint());
        EngineSignals s = src.read(DEADLINE);
        assertThat(s.running()).isEqualTo(4.0);
        assertThat(s.waiting()).isEqualTo(9.0);
        assertThat(s.kvCacheUsage()).as("the fullest engine's cache").isEqualTo(0.61);
        assertThat(s.queueWaitSeconds()).as("one read has no interval to measure").isNull();

        // Four more requests left the queue, together having waited 2 s.
        engine.prometheus("/metrics", first
                .replace("vllm:request_queue_time_seconds_sum{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 3.5",
                        "vllm:request_queue_time_seconds_sum{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 5.5")
                .replace("vllm:request_queue_time_seconds_count{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 12.0",
                        "vllm:request_queue_time_seconds_count{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 16"));
        EngineSignals second = src.read(DEADLINE);
        assertThat(second.queueWaitSeconds()).isEqualTo(0.5);
        assertThat(second.queueWaitSource()).isEqualTo("measured");
        assertThat(second.details()).containsEntry("queue_wait_requests", 4.0);

        EngineSignals idle = src.read(DEADLINE);
        assertThat(idle.queueWaitSeconds()).as("no request started: nothing measured, not zero").isNull();
    }

    @Test
    void vllmMlxSchedulerGaugesAndMetalMemory() throws Exception {
        engine.prometheus("/metrics", FakeEngine.resource("vllm-mlx-metrics.txt"));
        EngineSignals s = new PrometheusTextSource(engine.endpoint()).read(DEADLINE);
        assertThat(s.running()).isEqualTo(2.0);
        assertThat(s.waiting()).isEqualTo(4.0);
        assertThat(s.kvCacheUsage()).isNull();
        assertThat(s.details()).containsEntry("families", List.of("vllm_mlx"))
                .containsEntry("cache", Map.of("hit_rate", 0.25)).containsEntry("model_loaded", true);
        assertThat(s.details().get("metal_memory_bytes")).isEqualTo(Map.of("active", 9.663676416e9, "peak", 1.1811160064e10));
    }

    /** vllm-mlx as its metrics module writes it: what it writes as 0 for want of a figure is left out. */
    @Test
    void vllmMlxZerosForWantOfAFigureAreLeftOutAndTtftIsTheMeanBetweenReads() throws Exception {
        String head = "vllm_mlx_model_loaded 1.0\nvllm_mlx_scheduler_waiting_requests 3.0\nvllm_mlx_scheduler_running_requests 8.0\n"
                + "vllm_mlx_metal_memory_bytes{kind=\"active\"} 0.0\nvllm_mlx_metal_memory_bytes{kind=\"peak\"} 0.0\n"
                + "vllm_mlx_cache_type{cache_type=\"none\"} 1.0\nvllm_mlx_cache_type{cache_type=\"paged_cache\"} 0.0\n"
                + "vllm_mlx_cache_hit_rate 0.0\nvllm_mlx_engine_type{engine_type=\"simple\"} 1.0\n"
                + "vllm_mlx_engine_type{engine_type=\"batched\"} 0.0\n";
        String ttft = "vllm_mlx_inference_ttft_seconds_count{endpoint=\"chat_completions\",stream=\"true\"} %s\n"
                + "vllm_mlx_inference_ttft_seconds_sum{endpoint=\"chat_completions\",stream=\"true\"} %s\n"
                + "vllm_mlx_inference_ttft_seconds_count{endpoint=\"completions\",stream=\"true\"} 2.0\n"
                + "vllm_mlx_inference_ttft_seconds_sum{endpoint=\"completions\",stream=\"true\"} 0.5\n";
        PrometheusTextSource src = new PrometheusTextSource(engine.endpoint());
        engine.prometheus("/metrics", head + String.format(ttft, "8.0", "1.0"));
        EngineSignals first = src.read(DEADLINE);
        assertThat(first.running()).isEqualTo(8.0);
        assertThat(first.waiting()).isEqualTo(3.0);
        // No Metal (0 active), no cache: absent. The first read has no TTFT mean yet (nothing to compare with).
        assertThat(first.details()).doesNotContainKeys("metal_memory_bytes", "cache", "ttft_mean_seconds")
                .containsEntry("engine_type", "simple").containsEntry("cache_type", "none");
        // 4 more first tokens taking 1.2 s together (the completions endpoint unchanged): a mean of 0.3 s.
        engine.prometheus("/metrics", head + String.format(ttft, "12.0", "2.2"));
        EngineSignals second = src.read(DEADLINE);
        assertThat((Double) second.details().get("ttft_mean_seconds")).isCloseTo(0.3, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(second.details()).containsEntry("ttft_requests", 4.0);
        // Without an engine the server writes 0 for the scheduler: unknown, not an empty queue.
        engine.prometheus("/metrics", "vllm_mlx_model_loaded 0.0\nvllm_mlx_scheduler_waiting_requests 0.0\n"
                + "vllm_mlx_scheduler_running_requests 0.0\n");
        EngineSignals unloaded = src.read(DEADLINE);
        assertThat(unloaded.running()).isNull();
        assertThat(unloaded.waiting()).isNull();
        assertThat(unloaded.details()).containsEntry("model_loaded", false);
    }

    @Test
    void lmStudioLoadedInstancesGiveTheBatchSizeAndBrokenListsAreClassified() throws Exception {
        engine.json("/api/v1/models", "{\"models\":[{\"type\":\"llm\",\"key\":\"a\",\"loaded_instances\":["
                + "{\"id\":\"a\",\"config\":{\"context_length\":4096,\"parallel\":4}},"
                + "{\"id\":\"a:2\",\"config\":{\"context_length\":8192,\"parallel\":2}}]},"
                + "{\"type\":\"embedding\",\"key\":\"e\",\"loaded_instances\":[{\"id\":\"e\",\"config\":{\"context_length\":2048}}]},"
                + "{\"type\":\"llm\",\"key\":\"b\",\"loaded_instances\":[]}]}");
        EngineSignals s = new LmStudioModelsSource(engine.endpoint()).read(DEADLINE);
        assertThat(s.isEmpty()).as("LM Studio counts nothing itself").isTrue();
        assertThat(s.details()).containsEntry("batch_size", 6.0).containsEntry("loaded_instances", 2);
        // A parallel of -1 is out of range: dropped and counted, and the batch size is then unknown.
        long before = InputRange.rejected(LmStudioModelsSource.SOURCE, "parallel");
        engine.json("/api/v1/models", "{\"models\":[{\"type\":\"llm\",\"key\":\"a\",\"loaded_instances\":["
                + "{\"id\":\"a\",\"config\":{\"context_length\":4096,\"parallel\":-1}}]}]}");
        assertThat(new LmStudioModelsSource(engine.endpoint()).read(DEADLINE).details()).doesNotContainKey("batch_size");
        assertThat(InputRange.rejected(LmStudioModelsSource.SOURCE, "parallel")).isEqualTo(before + 1);
        engine.json("/api/v1/models", "{\"data\":[]}");
        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(() -> new LmStudioModelsSource(engine.endpoint())
                .read(DEADLINE), SignalFailure.class).errorType()).isEqualTo(SignalFailure.MISSING_FIELD);
    }

    @Test
    void mlxVlmJsonGivesInFlightCountersAndLastError() throws Exception {
        engine.json("/metrics", FakeEngine.resource("mlx-vlm-metrics.json"));
        EngineSignals s = new MlxVlmJsonSource(engine.endpoint()).read(DEADLINE);
        assertThat(s.running()).isEqualTo(3.0);
        assertThat(s.details()).containsEntry("requests_failed", 6.0).containsEntry("avg_decode_tok_s", 41.7)
                .containsEntry("last_error", "ValueError: image could not be decoded");
        // Nested one level down, as some versions group the counters.
        engine.json("/metrics", "{\"requests\": {\"in_flight\": 1, \"requests_started\": 4}, \"last_error\": null}");
        EngineSignals nested = new MlxVlmJsonSource(engine.endpoint()).read(DEADLINE);
        assertThat(nested.running()).isEqualTo(1.0);
        assertThat(nested.details()).doesNotContainKey("last_error");
    }

    @Test
    void healthQueueReadsTheConfiguredFieldPathEvenFromA503() throws Exception {
        engine.json("/healthz", FakeEngine.resource("healthz-queue.json"));
        assertThat(new HealthQueueSource(engine.endpoint(), "/healthz", "queue_size").read(DEADLINE).waiting())
                .isEqualTo(6.0);
        assertThat(new HealthQueueSource(engine.endpoint(), "/healthz", "workers.0.id").read(DEADLINE).waiting())
                .isEqualTo(0.0);
        engine.answer("/health", 503, "application/json", "{\"status\":\"busy\",\"queue\":{\"size\":\"12\"}}");
        assertThat(new HealthQueueSource(engine.endpoint(), "/health", "queue.size").read(DEADLINE).waiting())
                .isEqualTo(12.0);
    }

    @Test
    void brokenBodiesAreClassifiedFailuresOfThatSource() {
        EngineEndpoint ep = engine.endpoint();
        engine.json("/slots", "{\"error\": \"not a list\"}");
        assertFailure(() -> new LlamaCppSlotsSource(ep).read(DEADLINE), "malformed", "/slots");
        engine.json("/slots", "[{\"id\": 0, \"n_ctx\": 512}]");
        assertFailure(() -> new LlamaCppSlotsSource(ep).read(DEADLINE), "missing_field", "neither is_processing nor state");
        engine.answer("/slots", 501, "application/json", "{\"error\":{\"code\":501,\"message\":\"slots disabled\"}}");
        assertFailure(() -> new LlamaCppSlotsSource(ep).read(DEADLINE), "http_501", "slots disabled");
        engine.json("/slots", "[{\"id\": 0, \"is_processing\": tru");
        assertFailure(() -> new LlamaCppSlotsSource(ep).read(DEADLINE), "malformed", "not JSON");

        engine.prometheus("/metrics", "vllm:num_requests_running{engine=\"0\" 3\n");
        assertFailure(() -> new PrometheusTextSource(ep).read(DEADLINE), "malformed", "line 1, column");
        engine.prometheus("/metrics", "# TYPE go_goroutines gauge\ngo_goroutines 12\n");
        assertFailure(() -> new PrometheusTextSource(ep).read(DEADLINE), "missing_field", "none of the vllm:");
        engine.json("/metrics", FakeEngine.resource("mlx-vlm-metrics.json"));
        assertFailure(() -> new PrometheusTextSource(ep).read(DEADLINE), "malformed", "answered JSON");

        engine.prometheus("/metrics", FakeEngine.resource("llamacpp-metrics.txt"));
        assertFailure(() -> new MlxVlmJsonSource(ep).read(DEADLINE), "malformed", "not JSON");
        engine.json("/metrics", "{\"in_flight\": \"three\"}");
        assertFailure(() -> new MlxVlmJsonSource(ep).read(DEADLINE), "malformed", "in_flight is not a number");
        engine.json("/metrics", "{\"requests_started\": 3}");
        assertFailure(() -> new MlxVlmJsonSource(ep).read(DEADLINE), "missing_field", "no in_flight");

        engine.json("/healthz", "{\"status\": \"ok\"}");
        assertFailure(() -> new HealthQueueSource(ep, "/healthz", "queue_size").read(DEADLINE), "missing_field",
                "no field queue_size");
        engine.json("/healthz", "{\"queue_size\": [1, 2]}");
        assertFailure(() -> new HealthQueueSource(ep, "/healthz", "queue_size").read(DEADLINE), "malformed",
                "is not a number");
        engine.answer("/healthz", 503, "text/html", "<html>busy</html>");
        assertFailure(() -> new HealthQueueSource(ep, "/healthz", "queue_size").read(DEADLINE), "http_503", "busy");
    }

    @Test
    void transportFaultsAreClassifiedToo() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        EngineEndpoint nobody = new EngineEndpoint(URI.create("http://127.0.0.1:" + closed), null, Duration.ofSeconds(1));
        assertFailure(() -> new LlamaCppSlotsSource(nobody).read(DEADLINE), "connect_refused", "/slots");
        engine.slow("/slots", Duration.ofSeconds(3));
        assertFailure(() -> new LlamaCppSlotsSource(engine.endpoint()).read(Duration.ofMillis(300)), "timeout", "/slots");
    }

    static void assertFailure(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String type, String text) {
        assertThatThrownBy(call).isInstanceOf(SignalFailure.class).hasMessageContaining(text)
                .satisfies(t -> assertThat(((SignalFailure) t).errorType()).isEqualTo(type));
    }
}
