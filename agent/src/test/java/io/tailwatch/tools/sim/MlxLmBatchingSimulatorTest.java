package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The simulator's mlx_lm.server of 0.28 and later, on the wire: what the agent has to cope with. */
class MlxLmBatchingSimulatorTest {
    static final String SERVED = "/Users/me/models/Sim-Llama-3-8B-4bit";

    static EngineSimulator start(SimulatorOptions o) throws Exception {
        return EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, o);
    }

    static SimulatorOptions batching(List<String> hub) {
        return SimulatorOptions.defaults("openai").withModel(SERVED).withTiming(Duration.ofMillis(50), 200)
                .withBatching(32, hub);
    }

    /** One raw request on its own connection; the whole answer up to the server's close. */
    static String raw(int port, String method, String path, String body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            OutputStream o = s.getOutputStream();
            o.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + b.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            o.write(b);
            o.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String chat(String modelField, boolean stream, String streamOptions) {
        return "{" + (modelField == null ? "" : "\"model\":\"" + modelField + "\",")
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],\"max_tokens\":9,\"stream\":" + stream
                + (streamOptions == null ? "" : ",\"stream_options\":" + streamOptions) + "}";
    }

    @Test
    void streamsAreHttp10CloseDelimitedWithMultiTokenChunksAndAFingerprint() throws Exception {
        try (EngineSimulator sim = start(batching(SimulatorOptions.DEFAULT_HUB_MODELS))) {
            String answer = raw(sim.port(), "POST", "/v1/chat/completions", chat(null, true, "{\"include_usage\":true}"));
            String head = answer.substring(0, answer.indexOf("\r\n\r\n"));
            assertThat(head).startsWith("HTTP/1.0 200 OK").doesNotContainIgnoringCase("content-length")
                    .doesNotContainIgnoringCase("transfer-encoding");
            assertThat(answer).endsWith("data: [DONE]\n\n");
            long contentChunks = answer.lines().filter(l -> l.contains("\"content\"")).count();
            assertThat(contentChunks).as("9 tokens, two of them held back into the next chunk").isEqualTo(7);
            assertThat(answer).contains("\"completion_tokens\":9").contains("\"model\":\"default_model\"")
                    .contains("\"system_fingerprint\":\"" + OpenAiWire.MLX_FINGERPRINT + "\"")
                    .doesNotContain("\"content\":\"\"");
        }
    }

    @Test
    void emptyStreamOptionsEndTheStreamWithoutDone() throws Exception {
        try (EngineSimulator sim = start(batching(SimulatorOptions.DEFAULT_HUB_MODELS))) {
            String answer = raw(sim.port(), "POST", "/v1/chat/completions", chat(null, true, "{}"));
            assertThat(answer).contains("\"finish_reason\":\"length\"").doesNotContain("[DONE]");
        }
    }

    @Test
    void modelListPutsTheCacheFirstAndIsEmptyWithoutAHub() throws Exception {
        try (EngineSimulator sim = start(batching(SimulatorOptions.DEFAULT_HUB_MODELS))) {
            String answer = raw(sim.port(), "GET", "/v1/models", null);
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            assertThat(body.indexOf(SERVED)).isGreaterThan(body.indexOf("mlx-community/Qwen3-0.6B-4bit"));
            assertThat(body).doesNotContain("owned_by");
        }
        try (EngineSimulator sim = start(batching(null))) {
            String answer = raw(sim.port(), "GET", "/v1/models", null);
            assertThat(answer).startsWith("HTTP/1.0 200 OK");
            assertThat(answer.substring(answer.indexOf("\r\n\r\n") + 4)).isEmpty();
            assertThat(raw(sim.port(), "GET", "/metrics", null)).startsWith("HTTP/1.0 404").endsWith("Not Found");
        }
    }

    @Test
    void healthIsOkWhileTheModelLoadsAndRequestsWait() throws Exception {
        SimulatorOptions o = batching(SimulatorOptions.DEFAULT_HUB_MODELS).withLoadTime(Duration.ofSeconds(2));
        try (EngineSimulator sim = start(o)) {
            assertThat(raw(sim.port(), "GET", "/health", null)).startsWith("HTTP/1.0 200").contains("\"status\":\"ok\"");
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return raw(sim.port(), "POST", "/v1/chat/completions", chat(null, false, null));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> !waiting.isDone());
            assertThat(sim.served()).isZero();
            assertThat(waiting.get()).startsWith("HTTP/1.0 200").contains("\"completion_tokens\":9");
        }
    }

    @Test
    void equalModelStringsShareTheBatchAndANamedCachedModelIsSwappedIn() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withModel(SERVED).withTiming(Duration.ofMillis(300), 20)
                .withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS);
        try (EngineSimulator sim = start(o)) {
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return raw(sim.port(), "POST", "/v1/chat/completions", chat(null, true, "{\"include_usage\":true}"));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            calls.forEach(CompletableFuture::join);
            assertThat(sim.maxConcurrent()).isEqualTo(4);
            assertThat(sim.modelLoads()).isZero();
            // The served path named explicitly is another string: a batch of its own, same model, no load.
            raw(sim.port(), "POST", "/v1/chat/completions", chat(SERVED, false, null));
            assertThat(sim.modelLoads()).isZero();
            // A cached model named: the server drops its model and loads that one; no field loads it back.
            raw(sim.port(), "POST", "/v1/chat/completions", chat("mlx-community/gemma-3-1b-it-4bit", false, null));
            assertThat(sim.currentModel()).isEqualTo("mlx-community/gemma-3-1b-it-4bit");
            raw(sim.port(), "POST", "/v1/chat/completions", chat(null, false, null));
            assertThat(sim.currentModel()).isEqualTo(SERVED);
            assertThat(sim.modelLoads()).isEqualTo(2);
        }
    }

    @Test
    void aDifferentModelStringWaitsForTheRunningBatchToDrain() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai").withModel(SERVED).withTiming(Duration.ofMillis(10), 20)
                .withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS);
        try (EngineSimulator sim = start(o)) {
            CompletableFuture<String> users = CompletableFuture.supplyAsync(() -> {
                try {
                    return raw(sim.port(), "POST", "/v1/chat/completions",
                            chat(null, false, null).replace("\"max_tokens\":9", "\"max_tokens\":20"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> sim.served() == 1);
            raw(sim.port(), "POST", "/v1/chat/completions", chat("default_model", false, null));
            // admitted only after the users' request finished: never two at once
            assertThat(users).isDone();
            assertThat(sim.maxConcurrent()).isEqualTo(1);
        }
    }
}
