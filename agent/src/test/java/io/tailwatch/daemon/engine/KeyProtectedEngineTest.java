package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.EngineFlavor;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An engine started with an API key (llama-server --api-key, vLLM --api-key) answers HTTP 401 to the
 * agent without one: it is an engine that needs a key, everywhere (probe, detect, engines: auto, daemon),
 * never "no model", never "not an engine", never down or never reached.
 */
class KeyProtectedEngineTest {
    static final String KEY = "sk-test-0123456789";

    static EngineSimulator keyed(String api, String flavor) throws Exception {
        return EngineSimulator.start(api, flavor, "127.0.0.1", 0, SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(10), 200))
                .requireKey(KEY);
    }

    static ProbeRequest request(String model) {
        return new ProbeRequest(model, 16, 4, 0, Duration.ofSeconds(5), Duration.ofSeconds(10));
    }

    @Test
    void aProbeWithoutTheKeySaysHttp401AndThatTheEngineNeedsAKey() throws Exception {
        for (String[] af : List.of(new String[] {"openai", "llamacpp"}, new String[] {"ollama", "ollama"})) {
            try (EngineSimulator sim = keyed(af[0], af[1]);
                 EngineClient none = EngineClients.create(af[0], URI.create("http://127.0.0.1:" + sim.port()), null);
                 EngineClient wrong = EngineClients.create(af[0], URI.create("http://127.0.0.1:" + sim.port()), "sk-wrong");
                 EngineClient right = EngineClients.create(af[0], URI.create("http://127.0.0.1:" + sim.port()), KEY)) {
                EngineHealth h = none.health(Duration.ofSeconds(5));
                assertThat(h.needsKey()).as(af[1]).isTrue();
                assertThat(h.keyRefusedStatus()).isEqualTo(401);
                assertThat(h.error()).contains("HTTP 401", "needs an API key", "none is configured");
                assertThat(wrong.health(Duration.ofSeconds(5)).error()).contains("refused the one configured");

                ProbeResult noModel = none.probe(request(null));
                assertThat(noModel.success()).isFalse();
                assertThat(noModel.errorType()).isEqualTo("http_401");
                assertThat(noModel.errorMessage()).contains("HTTP 401", "needs an API key")
                        .doesNotContain("no model given");
                ProbeResult named = none.probe(request(sim.options().model()));
                assertThat(named.errorType()).isEqualTo("http_401");
                assertThat(named.errorMessage()).contains("needs an API key");

                assertThat(right.health(Duration.ofSeconds(5)).up()).isTrue();
                ProbeResult ok = right.probe(request(null));
                assertThat(ok.success()).as(String.valueOf(ok.errorMessage())).isTrue();
            }
        }
    }

    @Test
    void detectListsItAsAnEngineThatNeedsAKeyWithAnApiKeyLineAndAutoWatchesIt() throws Exception {
        try (EngineSimulator llama = keyed("openai", "llamacpp"); EngineSimulator vllm = keyed("openai", "vllm")) {
            EngineDiscovery.Found l = EngineDiscovery.identify("127.0.0.1", llama.port());
            EngineDiscovery.Found v = EngineDiscovery.identify("127.0.0.1", vllm.port());
            assertThat(l.flavor()).isEqualTo(EngineFlavor.LLAMACPP);
            assertThat(l.needsKey()).isTrue();
            assertThat(l.status()).contains("needs an API key (HTTP 401");
            assertThat(v.flavor()).isEqualTo(EngineFlavor.VLLM);
            assertThat(v.needsKey()).isTrue();
            String block = EngineDiscovery.configBlock(List.of(l, v));
            assertThat(block).contains("  - name: llamacpp\n", "    api_key: \"${LLAMACPP_API_KEY}\"", "    api_key: \"${VLLM_API_KEY}\"");
            // The block as pasted: the key variable is expanded from the environment like any ${...} value.
            io.tailwatch.core.config.Config pasted = io.tailwatch.core.config.Config.parse(block, "detect",
                    java.util.Map.of("LLAMACPP_API_KEY", "k-llama", "VLLM_API_KEY", "k-vllm"));
            assertThat(pasted.engines()).extracting(io.tailwatch.core.config.EngineConfig::apiKey).containsExactly("k-llama", "k-vllm");
            // engines: auto watches both: without the variable as needs_key, with it using the key.
            List<EngineConfig> without = EngineDiscovery.engines(List.of(l, v), Map.of());
            assertThat(without).extracting(EngineConfig::name).containsExactly("llamacpp", "vllm");
            assertThat(without).allSatisfy(e -> assertThat(e.apiKey()).isNull());
            List<EngineConfig> with = EngineDiscovery.engines(List.of(l), Map.of("LLAMACPP_API_KEY", KEY));
            assertThat(with.get(0).apiKey()).isEqualTo(KEY);
        }
    }

    @Test
    void theDaemonGivesItAStateAndAWarningOfItsOwnNeverEngineDown() throws Exception {
        MetricHub hub = new MetricHub();
        try (EngineSimulator sim = keyed("openai", "llamacpp")) {
            EngineWatch w = new EngineWatch(EngineWatchTest.engine("openai", sim.port(), null), hub, () -> HostSnapshot.EMPTY,
                    Clock.systemUTC(), 100);
            w.checkHealth();
            assertThat(w.state()).isEqualTo("needs_key");
            assertThat(w.reached()).as("it answered").isTrue();
            var s = hub.snapshot();
            assertThat(s.value(EngineMetrics.KEY_REFUSED, AttrKeys.ENGINE, "sim")).isEqualTo(1.0);
            assertThat(s.value(EngineMetrics.REACHED, AttrKeys.ENGINE, "sim")).isEqualTo(1.0);
            assertThat(s.of(EngineMetrics.UP)).as("health unknown: no up series, so EngineDown cannot fire").isEmpty();
            assertThat(w.probe("interactive")).isNull();
            assertThat(hub.snapshot().value(ProbeMetrics.PROBES_SKIPPED, AttrKeys.SKIP_REASON, "key_refused")).isEqualTo(1.0);
            assertThat(hub.snapshot().of(ProbeMetrics.PROBES_SKIPPED)).noneMatch(
                    p -> "engine_down".equals(p.attributes().get(AttrKeys.SKIP_REASON)));
            var status = EngineStatus.of(List.of(w)).get(0);
            assertThat(status).containsEntry("state", "needs_key").containsEntry("severity", "warning");
            assertThat((String) status.get("error")).contains("needs an API key");
            Signals sig = Signals.of(hub.snapshot(), null, List.of());
            assertThat(sig.engines()).singleElement().satisfies(e -> {
                assertThat(e.needsKey()).isTrue();
                assertThat(e.neverReachable()).isFalse();
            });
            String screen = io.tailwatch.tools.runbook.StatusScreen.render("http://127.0.0.1:9531",
                    io.tailwatch.core.json.Json.MAPPER.readTree("{\"version\":\"0.1.0\"}"),
                    io.tailwatch.core.json.Json.MAPPER.readTree("{\"alerts\":[]}"), sig);
            assertThat(screen).contains("NEEDS-KEY").doesNotContain("DOWN").doesNotContain("NEVER-REACHED");
        }
    }
}
