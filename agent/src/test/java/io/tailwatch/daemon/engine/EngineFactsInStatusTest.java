package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The daemon shows and exports what a llama.cpp server says about itself, not "unknown". */
class EngineFactsInStatusTest {
    @Test
    void versionMetricAndStatusCarryTheBuildTheFileFormatAndTheFileType() throws Exception {
        MetricHub hub = new MetricHub();
        try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel("tiny-random-llama-Q8_0"))) {
            EngineWatch w = new EngineWatch(EngineWatchTest.engine("openai", sim.port(), null), hub, () -> HostSnapshot.EMPTY,
                    Clock.systemUTC(), 100);
            w.checkHealth();
            assertThat(hub.snapshot().value(EngineMetrics.INFO, AttrKeys.ENGINE, "sim", AttrKeys.ENGINE_VERSION, "b6000-sim"))
                    .isEqualTo(1.0);
            assertThat(hub.snapshot().of(EngineMetrics.INFO)).noneMatch(
                    p -> "unknown".equals(p.attributes().get(AttrKeys.ENGINE_VERSION)));
            Map<String, Object> status = EngineStatus.of(List.of(w)).get(0);
            assertThat(status).containsEntry("version", "b6000-sim").containsEntry("provider", "llama_cpp");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> models = (List<Map<String, Object>>) status.get("models");
            assertThat(models).singleElement().satisfies(m -> assertThat(m).containsEntry("name", "tiny-random-llama-Q8_0")
                    .containsEntry("format", "gguf").containsEntry("quantization", "Q8_0"));
        }
    }
}
