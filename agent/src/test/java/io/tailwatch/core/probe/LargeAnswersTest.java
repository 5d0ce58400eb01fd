package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.http.BoundedJson;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.daemon.signals.EngineEndpoint;
import io.tailwatch.daemon.signals.EngineSignals;
import io.tailwatch.testing.HostileEngine;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Large but legal engine answers: read by streaming, bounded, and reported as over a bound, never as down. */
class LargeAnswersTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    @Test
    void twentyThousandServedModelsAreCountedAndTheFirst64Kept() throws Exception {
        try (HostileEngine engine = new HostileEngine(1, 20_000, 0, 10, false)) {
            EngineHealth h = EngineClients.create("openai", engine.url(), null).health(DEADLINE);
            assertThat(h.up()).as(String.valueOf(h.error())).isTrue();
            assertThat(h.modelsTotal()).isEqualTo(20_000);
            assertThat(h.models()).hasSize(EngineHealth.MAX_MODELS);
            assertThat(h.models().get(0).name()).isEqualTo("served-model-0");
            assertThat(h.inventoryKnown()).isTrue();
            assertThat(h.limit()).contains("/v1/models").contains("20000");
            assertThat(h.provider()).isEqualTo("vllm");
        }
    }

    @Test
    void aModelListOverTheByteBoundLeavesTheEngineUpAndSaysSo() throws Exception {
        // 30,000 entries of about 250 bytes: over 7 MiB, well past the 4 MiB the agent reads.
        try (HostileEngine engine = new HostileEngine(1, 30_000, 160, 10, false)) {
            EngineHealth h = EngineClients.create("openai", engine.url(), null).health(DEADLINE);
            assertThat(h.up()).as(String.valueOf(h.error())).isTrue();
            assertThat(h.error()).isNull();
            assertThat(h.limit()).contains("body larger than " + HttpTransport.MAX_JSON_BYTES + " bytes");
            assertThat(h.inventoryKnown()).isFalse();
            assertThat(h.models()).hasSize(EngineHealth.MAX_MODELS);
        }
    }

    @Test
    void fourThousandLoadedOllamaModelsAreCountedAndBounded() throws Exception {
        try (HostileEngine engine = new HostileEngine(4_000, 1, 0, 10, false)) {
            EngineHealth h = EngineClients.create("ollama", engine.url(), null).health(DEADLINE);
            assertThat(h.up()).as(String.valueOf(h.error())).isTrue();
            assertThat(h.modelsTotal()).isEqualTo(4_000);
            assertThat(h.models()).hasSize(EngineHealth.MAX_MODELS);
            assertThat(h.limit()).contains("/api/ps").contains("4000");
        }
    }

    @Test
    void aMetricsPageOfThirtyThousandSamplesKeepsOnlyTheEngineFamilies() throws Exception {
        try (HostileEngine engine = new HostileEngine(1, 1, 0, 30_000, false)) {
            EngineEndpoint ep = new EngineEndpoint(engine.url(), null, Duration.ofSeconds(2));
            EngineSignals s = new io.tailwatch.daemon.signals.PrometheusTextSource(ep).read(DEADLINE);
            assertThat(s.running()).isEqualTo(2.0);
            assertThat(s.waiting()).isEqualTo(3.0);
            assertThat(s.kvCacheUsage()).isEqualTo(0.25);
        }
    }

    @Test
    void boundedJsonCountsWhatItLeavesOut() throws Exception {
        byte[] body = ("{\"data\":[" + "{\"id\":\"a\"},".repeat(999) + "{\"id\":\"b\"}],\"x\":\"" + "y".repeat(10_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        BoundedJson.Limits l = new BoundedJson.Limits(10, 100, 50, 8);
        BoundedJson.Result r = BoundedJson.read(new java.io.ByteArrayInputStream(body), l);
        assertThat(r.root().get("data")).hasSize(10);
        assertThat(r.total("/data")).isEqualTo(1000);
        assertThat(r.root().get("x").asText()).hasSize(50);
        assertThat(r.describeCuts(l)).isEqualTo("/data has 1000 entries, over the bound of 10; the first 10 kept");
        assertThat(r.complete()).isTrue();
    }
}
