package io.tailwatch.bench;

import io.tailwatch.core.probe.StreamTap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the metering proxy's tap costs per forwarded chunk: one whole streamed answer of {@link #CHUNKS}
 * chunks (an OpenAI chat stream as llama.cpp's server writes it, each chunk a write of its own, then the
 * usage chunk and [DONE]; or Ollama's NDJSON), fed to a fresh {@link StreamTap} as the proxy feeds it, and
 * its counts read at the end. The score is per chunk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StreamTapBenchmark {
    static final int CHUNKS = 64;

    @Param({"sse", "ndjson"})
    public String format;

    private List<byte[]> writes;
    private String contentType;

    @Setup
    public void setUp() {
        writes = new ArrayList<>();
        if (format.equals("sse")) {
            contentType = "text/event-stream";
            for (int i = 0; i < CHUNKS; i++) {
                writes.add(("data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\" word" + i
                        + "\"}}],\"created\":1764650000,\"id\":\"chatcmpl-Xq3kP0mZ8fT2vR7yL1nB4cD6eG9hJ5\",\"model\":\"tiny.gguf\","
                        + "\"system_fingerprint\":\"b6669-0bc9f1c0\",\"object\":\"chat.completion.chunk\"}\n\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            writes.add(("data: {\"choices\":[],\"created\":1764650000,\"id\":\"chatcmpl-Xq3kP0mZ8fT2vR7yL1nB4cD6eG9hJ5\","
                    + "\"model\":\"tiny.gguf\",\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":64,"
                    + "\"prompt_tokens\":79,\"total_tokens\":143},\"timings\":{\"prompt_n\":79,\"prompt_ms\":855.1,"
                    + "\"predicted_n\":64,\"predicted_ms\":640.2,\"predicted_per_second\":99.97}}\n\ndata: [DONE]\n\n")
                    .getBytes(StandardCharsets.UTF_8));
        } else {
            contentType = "application/x-ndjson";
            for (int i = 0; i < CHUNKS; i++) {
                writes.add(("{\"model\":\"llama3.1:8b\",\"created_at\":\"2026-12-02T04:00:00.123456789Z\",\"message\":"
                        + "{\"role\":\"assistant\",\"content\":\" word" + i + "\"},\"done\":false}\n").getBytes(StandardCharsets.UTF_8));
            }
            writes.add(("{\"model\":\"llama3.1:8b\",\"created_at\":\"2026-12-02T04:00:01Z\",\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true,\"total_duration\":1234567890,"
                    + "\"load_duration\":1234567,\"prompt_eval_count\":79,\"prompt_eval_duration\":85510000,"
                    + "\"eval_count\":64,\"eval_duration\":640200000}\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    @Benchmark
    @OperationsPerInvocation(CHUNKS + 1)
    public void tapOneStream(Blackhole bh) {
        long t = 1_000_000L;
        StreamTap tap = StreamTap.of(contentType, t);
        for (byte[] w : writes) {
            t += 1_000_000L;
            tap.bytes(w, 0, w.length, t);
        }
        tap.end(t + 1);
        bh.consume(tap.tokens());
        bh.consume(tap.firstContentNanos());
    }
}
