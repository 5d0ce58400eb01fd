package io.tailwatch.bench;

import com.sun.net.httpserver.HttpServer;
import io.tailwatch.daemon.signals.EngineEndpoint;
import io.tailwatch.daemon.signals.EngineSignals;
import io.tailwatch.daemon.signals.PrometheusTextParser;
import io.tailwatch.daemon.signals.PrometheusTextSource;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of reading an engine's signals: parsing a vLLM-sized /metrics exposition (two models, the
 * request gauges and six latency histograms of 23 buckets each, with HELP/TYPE lines), and one whole
 * read of it by the Prometheus source over loopback HTTP (GET, parse, figures).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// The JDK test server otherwise waits on delayed ACKs (about 40 ms per exchange); engines do not.
@Fork(value = 1, jvmArgsAppend = "-Dsun.net.httpserver.nodelay=true")
public class EngineSignalsBenchmark {
    static final double[] BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5,
            10, 20, 40, 80, 160, 640, 2560};
    private String exposition;
    private HttpServer server;
    private PrometheusTextSource source;

    static String vllmLike() {
        StringBuilder b = new StringBuilder();
        String[] models = {"Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"};
        String[] gauges = {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"};
        for (String g : gauges) {
            b.append("# HELP ").append(g).append(" A gauge.\n# TYPE ").append(g).append(" gauge\n");
            for (String m : models) {
                b.append(g).append("{engine=\"0\",model_name=\"").append(m).append("\"} 3.0\n");
            }
        }
        String[] hists = {"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
                "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
                "vllm:request_decode_time_seconds"};
        for (String h : hists) {
            b.append("# HELP ").append(h).append(" A histogram.\n# TYPE ").append(h).append(" histogram\n");
            for (String m : models) {
                long count = 0;
                for (double le : BUCKETS) {
                    count += 7;
                    b.append(h).append("_bucket{engine=\"0\",le=\"").append(String.format(Locale.ROOT, "%s", le))
                            .append("\",model_name=\"").append(m).append("\"} ").append(count).append(".0\n");
                }
                b.append(h).append("_bucket{engine=\"0\",le=\"+Inf\",model_name=\"").append(m).append("\"} ")
                        .append(count).append(".0\n");
                b.append(h).append("_count{engine=\"0\",model_name=\"").append(m).append("\"} ").append(count).append(".0\n");
                b.append(h).append("_sum{engine=\"0\",model_name=\"").append(m).append("\"} 123.456\n");
            }
        }
        return b.toString();
    }

    @Setup
    public void setUp() throws Exception {
        exposition = vllmLike();
        byte[] body = exposition.getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/metrics", x -> {
            try (x) {
                x.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                x.sendResponseHeaders(200, body.length);
                try (OutputStream o = x.getResponseBody()) {
                    o.write(body);
                }
            }
        });
        server.start();
        source = new PrometheusTextSource(new EngineEndpoint(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                null, Duration.ofSeconds(2)));
    }

    @TearDown
    public void tearDown() {
        server.stop(0);
    }

    @Benchmark
    public PrometheusTextParser.Exposition parseVllmMetrics() throws Exception {
        return PrometheusTextParser.parse(exposition);
    }

    @Benchmark
    public EngineSignals readVllmMetricsOverLoopback() throws Exception {
        return source.read(Duration.ofSeconds(2));
    }

    /** Size of the exposition, for the write-up. */
    public static void main(String[] args) {
        String s = vllmLike();
        System.out.println(s.lines().count() + " lines, " + s.getBytes(StandardCharsets.UTF_8).length + " bytes");
    }
}
