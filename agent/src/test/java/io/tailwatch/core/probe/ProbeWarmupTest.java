package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.testing.FaultServer;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The probe warm-up runs the client's whole streaming path against an in-process loopback listener:
 * nothing reaches the engine, the bearer token stays home, and the budget bounds it.
 */
class ProbeWarmupTest {
    private static final ProbeRequest REQUEST = new ProbeRequest("m", 64, 8, 0,
            Duration.ofSeconds(5), Duration.ofSeconds(10));

    /** A loopback engine that records every request line and answers each with a short valid stream. */
    private static FaultServer engine(String api, List<String> seen) throws Exception {
        return new FaultServer((request, out) -> {
            seen.add(request.lines().findFirst().orElse(""));
            if (api.equals("openai")) {
                stream(out, "text/event-stream",
                        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                                + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n"
                                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":2}}\n\n"
                                + "data: [DONE]\n\n");
            } else {
                stream(out, "application/x-ndjson",
                        "{\"message\":{\"content\":\"a\"},\"done\":false}\n"
                                + "{\"message\":{\"content\":\"b\"},\"done\":true,\"eval_count\":2,\"prompt_eval_count\":64}\n");
            }
        });
    }

    private static void stream(OutputStream out, String type, String body) throws Exception {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " + b.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(b);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "ollama"})
    void warmUpRunsTheWholePathOnLoopbackAndTheEngineSeesOnlyTheProbe(String api) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (FaultServer server = engine(api, seen);
             EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + server.port()), "tw-secret-key")) {
            ProbeWarmup.Outcome o = ProbeWarmup.run((AbstractEngineClient) c, REQUEST, Duration.ofSeconds(5),
                    ProbeWarmup.canned(api));

            // The canned stream went through transport, framing, parser and measurement like a real one.
            assertThat(o.result().success()).as(o.result().errorType() + " " + o.result().errorMessage()).isTrue();
            assertThat(o.result().outputTokens()).isEqualTo((long) ProbeWarmup.TOKENS);
            assertThat(o.result().ttftSeconds()).isNotNull();
            // A decode rate needs the tokens spread over time; all 32 in one read (a busy host) leave it unknown, never 0.
            assertThat(o.result().decodeTokensPerSecond()).satisfiesAnyOf(d -> assertThat(d).isNull(),
                    d -> assertThat(d).isPositive());
            // The request the client would send, less the token.
            String path = api.equals("openai") ? "/v1/chat/completions" : "/api/chat";
            assertThat(o.requestHead()).startsWith("POST " + path + " HTTP/1.1\r\n");
            assertThat(o.requestHead()).doesNotContainIgnoringCase("authorization").doesNotContain("tw-secret-key");
            assertThat(seen).isEmpty();

            ProbeResult r = c.probe(REQUEST);
            assertThat(r.success()).as(r.errorType() + " " + r.errorMessage()).isTrue();
            assertThat(seen).containsExactly("POST " + path + " HTTP/1.1");
        }
    }

    @Test
    void aStalledWarmUpEndsAtItsBudget() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        ProbeWarmup.Canned full = ProbeWarmup.canned("openai");
        // The first two pieces (role chunk, keep-alive) and then nothing: the listener holds the connection.
        ProbeWarmup.Canned stalled = new ProbeWarmup.Canned(full.contentType(), false, full.pieces()[0], full.pieces()[1]);
        try (FaultServer server = engine("openai", seen);
             EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + server.port()), null)) {
            // Once in full first, so that what is timed below is the stall and not this JVM loading classes.
            ProbeWarmup.run((AbstractEngineClient) c, REQUEST, Duration.ofSeconds(5), full);
            long t0 = System.nanoTime();
            ProbeWarmup.Outcome o = ProbeWarmup.run((AbstractEngineClient) c, REQUEST, Duration.ofMillis(300), stalled);
            long ms = (System.nanoTime() - t0) / 1_000_000;

            assertThat(o.result().success()).isFalse();
            assertThat(o.result().errorType()).isEqualTo(ProbeErrors.FIRST_TOKEN_TIMEOUT);
            assertThat(ms).isBetween(280L, 1300L);
            assertThat(o.nanos() / 1_000_000).isLessThanOrEqualTo(ms);
            assertThat(seen).isEmpty();
        }
    }

    @Test
    void anApiWithoutACannedStreamIsNotWarmed() throws Exception {
        assertThat(ProbeWarmup.canned("grpc")).isNull();
        try (EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:9"), null)) {
            assertThat(ProbeWarmup.run((AbstractEngineClient) c, REQUEST, Duration.ofSeconds(1), null)).isNull();
        }
    }
}
