package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engines section as documented: every key, defaults, and the deadline rule. */
class EngineConfigExampleTest {
    static final String EXAMPLE = """
            engines:
              - name: ollama
                api: ollama
                url: http://127.0.0.1:11434
                model: llama3.2:3b
                health:
                  interval: 15s
                connect_timeout: 2s
                scenarios:
                  - name: interactive
                    interval: 60s
                    prompt_tokens: 64
                    max_tokens: 32
                    temperature: 0
                    timeouts: {first_token: 30s, total: 50s}
                  - name: long-context
                    interval: 5m
                    prompt_tokens: 4000
                    max_tokens: 128
                    timeouts: {first_token: 120s, total: 240s}
              - name: mlx
                api: openai
                url: http://127.0.0.1:8080
                api_key: ${MLX_API_KEY}
            """;

    @Test
    void exampleIsAccepted() throws Exception {
        Config c = Config.parse(EXAMPLE, "example", Map.of("MLX_API_KEY", "k"));
        EngineConfig o = c.engine("ollama");
        assertThat(o.model()).isEqualTo("llama3.2:3b");
        assertThat(o.scenarios()).hasSize(2);
        assertThat(o.scenarios().get(1).totalTimeout()).isEqualTo(Duration.ofSeconds(240));
        assertThat(o.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        EngineConfig m = c.engine("mlx");
        assertThat(m.apiKey()).isEqualTo("k");
        assertThat(m.toString()).doesNotContain("k,").contains("apiKey=set");
        assertThat(m.healthInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(m.scenarios().get(0).interval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(m.scenarios().get(0).temperature()).isEqualTo(0.0);
    }

    @Test
    void totalDeadlineMustBeShorterThanTheInterval() {
        String bad = EXAMPLE.replace("timeouts: {first_token: 30s, total: 50s}",
                "timeouts: {first_token: 30s, total: 60s}");
        assertThatThrownBy(() -> Config.parse(bad, "bad.yaml", Map.of("MLX_API_KEY", "k")))
                .hasMessageContaining("total").hasMessageContaining("shorter than the scenario interval");
    }
}
