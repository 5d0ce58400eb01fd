package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engines[].signals section: defaults, pinning, and problems named by path. */
class EngineSignalsConfigTest {

    static EngineConfig engine(String signals) throws ConfigException {
        return Config.parse("engines:\n  - name: e\n    api: openai\n    url: http://127.0.0.1:8080\n" + signals, "t.yaml",
                Map.of()).engines().get(0);
    }

    @Test
    void withoutASectionTheDefaultsApplyAndTheBuiltInFileSaysTheSame() throws Exception {
        EngineConfig e = engine("");
        assertThat(e.signals()).isEqualTo(EngineConfig.Signals.DEFAULT);
        assertThat(e.signals().source()).isEqualTo(SignalSourceSetting.AUTO);
        assertThat(e.signals().healthQueueField()).isEqualTo("queue_size");
        assertThat(e.signals().interval()).isEqualTo(Duration.ofSeconds(15));
        for (EngineConfig builtIn : Config.defaults(Map.of()).engines()) {
            assertThat(builtIn.signals()).isEqualTo(EngineConfig.Signals.DEFAULT);
        }
    }

    @Test
    void everySourceCanBePinned() throws Exception {
        for (SignalSourceSetting s : SignalSourceSetting.values()) {
            assertThat(engine("    signals: {source: " + s.configName() + "}\n").signals().source()).isEqualTo(s);
        }
        EngineConfig e = engine("    signals:\n      source: health_queue\n      health_queue_field: scheduler.queue.0\n"
                + "      interval: 5s\n");
        assertThat(e.signals()).isEqualTo(new EngineConfig.Signals(SignalSourceSetting.HEALTH_QUEUE, "scheduler.queue.0", Duration.ofSeconds(5)));
    }

    @Test
    void badValuesAreReportedWithTheirPath() {
        assertThatThrownBy(() -> engine("    signals:\n      source: prometheus\n      health_queue_field: \"a..b\"\n"
                + "      interval: 0s\n      bogus: 1\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].signals.source")
                .hasMessageContaining("expected one of " + String.join(", ", SignalSourceSetting.names()))
                .hasMessageContaining("engines[0].signals.health_queue_field")
                .hasMessageContaining("engines[0].signals.interval")
                .hasMessageContaining("engines[0].signals.bogus");
    }

    @Test
    void aBatchSizeIsOptionalBoundedAndDocumented() throws Exception {
        assertThat(engine("").signals().batchSize()).as("unset: unknown, not a default").isNull();
        assertThat(engine("    signals: {batch_size: 32}\n").signals().batchSize()).isEqualTo(32);
        assertThatThrownBy(() -> engine("    signals: {batch_size: 0}\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].signals.batch_size");
        assertThatThrownBy(() -> engine("    signals: {batch_size: 4097}\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].signals.batch_size");
        assertThat(ConfigTest.documentedEngines().engines()).anySatisfy(e -> assertThat(e.signals().batchSize()).isEqualTo(32));
    }

    @Test
    void theShippedConfigDescribesEverySource() {
        String shipped = Config.defaultText();
        for (SignalSourceSetting s : SignalSourceSetting.values()) {
            assertThat(shipped).as(s.configName()).contains(s.configName());
        }
    }

    @Test
    void theOlderConstructorKeepsWorkingWithDefaultSignals() {
        EngineConfig e = new EngineConfig("x", "ollama", URI.create("http://127.0.0.1:11434"), null, null,
                Duration.ofSeconds(15), Duration.ofSeconds(5), true, List.of(), List.of(), null);
        assertThat(e.signals()).isEqualTo(EngineConfig.Signals.DEFAULT);
    }
}
