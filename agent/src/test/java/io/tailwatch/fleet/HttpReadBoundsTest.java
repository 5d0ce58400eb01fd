package io.tailwatch.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tailwatch.core.http.BodyStream;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.LlamaCppServerInfo;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.daemon.engine.EngineDiscovery;
import io.tailwatch.daemon.signals.EngineEndpoint;
import io.tailwatch.daemon.signals.SignalFailure;
import io.tailwatch.testing.FloodServer;
import io.tailwatch.tools.runbook.AgentClient;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every read of an HTTP answer in the agent, against a server that answers 100 MB: first the call sites
 * themselves, found in the compiled classes (every class outside {@code core/http} that calls the HTTP
 * client), which must be exactly the ones exercised here; then each read, which must come back with a
 * classified over-bound result while allocating a bounded amount on its thread (what a read never
 * allocates it cannot hold).
 */
class HttpReadBoundsTest {
    /**
     * A call may allocate this much in all, garbage included (its buffers, the bounded tree, the parser's
     * strings as they pass), for the one to three reads it makes of the 100 MB: a read that held the
     * answer, or just its first 4 MiB as text, would pass it. What stays held is checked under the shipped
     * 24 MiB heap by HostileNeighbourIT.
     */
    private static final long MAX_ALLOCATED = 24L << 20;
    private static final Duration CONNECT = Duration.ofSeconds(2);
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    /**
     * The classes that use the HTTP client, each with how its reads are bounded and which test below
     * reads through it. A new caller fails {@link #everyCallerOfTheHttpClientIsCoveredHere} until it is added.
     */
    private static final Map<String, String> CALLERS = new TreeMap<>(Map.of(
            "io.tailwatch.core.probe.AbstractEngineClient", "engineClientsReadBounded",
            "io.tailwatch.core.probe.LlamaCppServerInfo", "llamaCppServerInfoReadsBounded",
            "io.tailwatch.core.probe.StreamingCall", "engineClientsReadBounded (probe)",
            "io.tailwatch.daemon.engine.EngineDiscovery", "discoveryReadsBounded",
            "io.tailwatch.daemon.signals.EngineEndpoint", "signalReadsBounded",
            "io.tailwatch.core.probe.ProbeWarmup", "engineClientsReadBounded (the first probe)",
            "io.tailwatch.daemon.alerts.WebhookSink", "webhookReadsNoBody",
            "io.tailwatch.daemon.alerts.AlertmanagerSink", "errorAnswersReadOnlyTheirStart (a refusal's first bytes, through HttpTransport.errorBody, for its log line)",
            "io.tailwatch.tools.runbook.AgentClient", "agentClientReadsBounded"));

    /** The client's methods that read nothing from a server: a text's clip, and a host name's lookup. */
    private static final Set<String> NOT_READS = Set.of("clip", "lookUp");

    private static FloodServer server;

    @BeforeAll
    static void flood() throws IOException {
        server = new FloodServer(100_000_000L);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    private static URI url() {
        return server.url();
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private interface Read<T> {
        T run() throws Exception;
    }

    /** Runs {@code read} and checks it allocated at most {@link #MAX_ALLOCATED} on this thread. */
    private static <T> T bounded(String what, Read<T> read) throws Exception {
        long before = allocated();
        try {
            return read.run();
        } finally {
            long used = allocated() - before;
            assertThat(used).as(what + " allocated %d bytes for a 100 MB answer", used).isLessThan(MAX_ALLOCATED);
        }
    }

    @Test
    void everyCallerOfTheHttpClientIsCoveredHere() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tailwatch");
        Set<String> client = Set.of(HttpExchange.class.getName(), HttpTransport.class.getName(),
                HttpTransport.Request.class.getName(), BodyStream.class.getName());
        Set<String> callers = new TreeSet<>();
        Set<String> bodyReaders = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().equals("io.tailwatch.core.http")) {
                continue;
            }
            java.util.List<JavaAccess<?>> calls = new java.util.ArrayList<>(c.getMethodCallsFromSelf());
            calls.addAll(c.getConstructorCallsFromSelf());
            for (JavaAccess<?> a : calls) {
                String owner = a.getTargetOwner().getName();
                if (client.contains(owner) && !NOT_READS.contains(a.getName())) {
                    String top = topLevel(c).getName();
                    callers.add(top);
                    String name = a.getName();
                    if (owner.equals(BodyStream.class.getName()) || name.equals("read") || name.equals("readBody")
                            || name.equals("json") || name.equals("get") || name.equals("errorBody")) {
                        bodyReaders.add(top);
                    }
                }
            }
        }
        assertThat(callers).as("every class that uses the HTTP client has a bounded-read case here")
                .containsExactlyInAnyOrderElementsOf(CALLERS.keySet());
        assertThat(bodyReaders).as("the webhook reads the status alone, never a body")
                .doesNotContain("io.tailwatch.daemon.alerts.WebhookSink");
    }

    private static JavaClass topLevel(JavaClass c) {
        while (c.getEnclosingClass().isPresent()) {
            c = c.getEnclosingClass().get();
        }
        return c;
    }

    @Test
    void transportReadsBounded() throws Exception {
        HttpTransport.JsonReply j = bounded("json GET", () -> HttpTransport.json(url().resolve("/v1/models"), null, null,
                CONNECT, DEADLINE));
        assertThat(j.complete()).isFalse();
        assertThat(j.limit()).contains("body larger than " + HttpTransport.MAX_JSON_BYTES + " bytes");
        assertThat(j.body().path("data").size()).isLessThanOrEqualTo(256);
        HttpTransport.JsonReply post = bounded("json POST", () -> HttpTransport.json(url().resolve("/api/chat"),
                Map.of("model", "m"), null, CONNECT, DEADLINE));
        assertThat(post.limit()).contains("body larger than");
        HttpTransport.TextReply t = bounded("text GET", () -> HttpTransport.get(url().resolve("/metrics"), "*/*", null,
                CONNECT, DEADLINE));
        assertThat(t.errorType()).isEqualTo(ProbeErrors.OVER_LIMIT);
        assertThat(t.error()).contains("/metrics: body larger than " + HttpTransport.MAX_TEXT_BYTES + " bytes");
        assertThat(t.status()).isEqualTo(200);
    }

    @Test
    void errorAnswersReadOnlyTheirStart() throws Exception {
        server.status(500);
        try {
            HttpTransport.JsonReply j = bounded("json GET of a 500", () -> HttpTransport.json(url().resolve("/health"),
                    null, null, CONNECT, DEADLINE));
            assertThat(j.status()).isEqualTo(500);
            assertThat(j.rawBody()).hasSizeLessThanOrEqualTo(4096).startsWith("{\"version\"");
            SignalFailure f = bounded("signals of a 500", () -> failure(() -> new EngineEndpoint(url(), null, CONNECT)
                    .getJson("/slots", DEADLINE)));
            assertThat(f.errorType()).isEqualTo(ProbeErrors.http(500));
        } finally {
            server.status(200);
        }
    }

    @Test
    void discoveryReadsBounded() throws Exception {
        EngineDiscovery.Found f = bounded("discovery", () -> EngineDiscovery.identify("127.0.0.1", server.port()));
        // {"version": "1"}: it answers like Ollama; what it lists is cut to the few names kept.
        assertThat(f.engine()).isTrue();
        assertThat(f.models()).hasSizeLessThanOrEqualTo(5);
        assertThat(f.models()).allSatisfy(m -> assertThat(m.length()).isLessThanOrEqualTo(1024));
    }

    @Test
    void signalReadsBounded() throws Exception {
        EngineEndpoint ep = new EngineEndpoint(url(), null, CONNECT);
        SignalFailure json = bounded("signals JSON", () -> failure(() -> ep.getJson("/slots", DEADLINE)));
        assertThat(json.errorType()).isEqualTo(ProbeErrors.OVER_LIMIT);
        assertThat(json.getMessage()).contains("body larger than " + HttpTransport.MAX_JSON_BYTES);
        HttpTransport.JsonReply health = bounded("signals health", () -> ep.answerJson("/health", DEADLINE));
        assertThat(health.complete()).isFalse();
        SignalFailure stream = bounded("signals stream", () -> failure(() -> ep.stream("/metrics", "*/*", DEADLINE,
                (type, in) -> in.transferTo(OutputStream.nullOutputStream()))));
        assertThat(stream.errorType()).isEqualTo(ProbeErrors.OVER_LIMIT);
    }

    @Test
    void engineClientsReadBounded() throws Exception {
        for (EngineApi api : EngineApi.values()) {
            EngineClient c = api.client(url(), null, CONNECT);
            bounded(api + " health", () -> c.health(DEADLINE));
            bounded(api + " default model", () -> c.defaultModel(DEADLINE));
            bounded(api + " model facts", () -> c.modelFacts("m", DEADLINE));
            ProbeResult r = bounded(api + " probe", () -> c.probe(new ProbeRequest("m", 8, 4, 0.0,
                    Duration.ofSeconds(10), DEADLINE)));
            assertThat(r.success()).as(api + " probe of a 100 MB non-stream").isFalse();
        }
    }

    @Test
    void llamaCppServerInfoReadsBounded() throws Exception {
        bounded("llama.cpp /props", () -> {
            try {
                return LlamaCppServerInfo.read(url(), null, CONNECT, DEADLINE);
            } catch (LlamaCppServerInfo.Failure e) {
                return e;
            }
        });
    }

    @Test
    void agentClientReadsBounded() {
        AgentClient c = new AgentClient(url(), null, DEADLINE);
        assertThatThrownBy(() -> bounded("agent client", () -> c.get("/api/v1/status")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("answer larger than 4194304 bytes");
    }

    private static SignalFailure failure(Read<?> r) throws Exception {
        try {
            r.run();
        } catch (SignalFailure f) {
            return f;
        }
        throw new AssertionError("no failure");
    }
}
