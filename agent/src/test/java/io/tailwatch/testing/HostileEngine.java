package io.tailwatch.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback engine that answers every health, inventory and metrics endpoint with large but legal
 * bodies: Ollama's /api/ps with many models, /v1/models with many entries (or more bytes than the
 * agent reads), a /metrics with tens of thousands of samples; optionally a model name that changes
 * on every inventory read, with a streaming chat answer for probes of any model.
 */
public final class HostileEngine implements AutoCloseable {
    private final HttpServer server;
    private final AtomicLong rotation = new AtomicLong();
    private final byte[] ps;
    private final byte[] models;
    private final byte[] metrics;
    private final boolean rotate;

    /**
     * @param psModels     models in /api/ps
     * @param servedModels entries in /v1/models (ignored when {@code rotate})
     * @param padModels    extra bytes of padding per /v1/models entry (to go past the byte bound)
     * @param samples      samples of unrelated families in /metrics (plus a few vllm: ones)
     * @param rotate       /v1/models lists one model, a new one at every read
     */
    public HostileEngine(int psModels, int servedModels, int padModels, int samples, boolean rotate) throws IOException {
        this.rotate = rotate;
        this.ps = psBody(psModels);
        this.models = modelsBody(servedModels, padModels);
        this.metrics = metricsBody(samples);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "hostile-engine");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** How many inventories were served with a new model (rotating engines). */
    public long rotations() {
        return rotation.get();
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            x.getRequestBody().readAllBytes();
            switch (path) {
                case "/api/version" -> send(x, 200, "application/json", bytes("{\"version\":\"0.12.6\"}"));
                case "/api/ps" -> send(x, 200, "application/json", ps);
                case "/v1/models" -> send(x, 200, "application/json", rotate
                        ? bytes("{\"object\":\"list\",\"data\":[{\"id\":\"rotating-model-" + rotation.incrementAndGet()
                        + "\",\"object\":\"model\",\"owned_by\":\"vllm\"}]}")
                        : models);
                case "/metrics" -> send(x, 200, "text/plain; version=0.0.4; charset=utf-8", metrics);
                case "/v1/chat/completions" -> chat(x);
                default -> send(x, 404, "text/plain", bytes("404 page not found"));
            }
        } catch (IOException e) {
            // the agent went away
        }
    }

    private static void chat(HttpExchange x) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            b.append("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok\"}}]}\n\n");
        }
        b.append("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],")
                .append("\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":4}}\n\n");
        b.append("data: [DONE]\n\n");
        send(x, 200, "text/event-stream", bytes(b.toString()));
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, body.length);
        try (OutputStream o = x.getResponseBody()) {
            o.write(body);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** About 200 bytes per model, as Ollama writes them. */
    static byte[] psBody(int n) {
        StringBuilder b = new StringBuilder("{\"models\":[");
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"name\":\"model-").append(i).append(":latest\",\"model\":\"model-").append(i)
                    .append(":latest\",\"size\":5137025024,\"digest\":\"").append(String.format("%064x", i))
                    .append("\",\"expires_at\":\"2026-01-01T00:05:00Z\",\"size_vram\":5137025024,\"context_length\":4096}");
        }
        return bytes(b.append("]}").toString());
    }

    /** About 90 bytes per entry (plus padding), as vLLM writes them. */
    static byte[] modelsBody(int n, int pad) {
        StringBuilder b = new StringBuilder("{\"object\":\"list\",\"data\":[");
        String padding = "x".repeat(pad);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"id\":\"served-model-").append(i).append("\",\"object\":\"model\",\"created\":1700000000,")
                    .append("\"owned_by\":\"vllm\",\"max_model_len\":8192");
            if (pad > 0) {
                b.append(",\"root\":\"").append(padding).append('"');
            }
            b.append('}');
        }
        return bytes(b.append("]}").toString());
    }

    /** {@code n} samples of an unrelated family with labels, then the vLLM gauges the agent reads. */
    static byte[] metricsBody(int n) {
        StringBuilder b = new StringBuilder("# HELP python_gc_objects_collected_total Objects collected during gc\n");
        b.append("# TYPE python_gc_objects_collected_total counter\n");
        for (int i = 0; i < n; i++) {
            b.append("http_requests_total{handler=\"/v1/handler/").append(i)
                    .append("\",method=\"POST\",status=\"2xx\"} ").append(i).append(".0\n");
        }
        b.append("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 2.0\n");
        b.append("# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 3.0\n");
        b.append("# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.25\n");
        return bytes(b.toString());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
