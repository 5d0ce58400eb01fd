package io.tailwatch.tools.capacity;

import static io.tailwatch.tools.capacity.LadderResultTest.ladder;
import static io.tailwatch.tools.capacity.LadderResultTest.step;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When a ladder's concurrency-1 p95 may become a scenario's alert baseline, and why not otherwise. */
class BaselineHandoverTest {
    @TempDir
    Path dir;

    EngineConfig engine() throws Exception {
        Path f = dir.resolve("tailwatch.yaml");
        Files.writeString(f, """
                engines:
                  - name: mlx
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - name: interactive
                        interval: 60s
                        prompt_tokens: 64
                        max_tokens: 32
                """);
        return Config.load(f, Map.of()).engine("mlx");
    }

    @Test
    void a_clean_step_of_the_scenarios_shape_on_a_configured_engine_may() throws Exception {
        assertThat(BaselineHandover.refusal(engine(), "gemma", "interactive", 64, 32, ladder(step(1, 5, 0, true))))
                .isNull();
    }

    @Test
    void every_refusal_says_why() throws Exception {
        LadderResult clean = ladder(step(1, 5, 0, true));
        assertThat(BaselineHandover.refusal(null, "gemma", "interactive", 64, 32, clean))
                .startsWith("--url names an engine the agent does not watch");
        assertThat(BaselineHandover.refusal(engine(), null, "interactive", 64, 32, clean))
                .isEqualTo("the model is unknown (give --model)");
        assertThat(BaselineHandover.refusal(engine(), "gemma", "batch", 64, 32, clean))
                .isEqualTo("engine mlx has no scenario batch");
        assertThat(BaselineHandover.refusal(engine(), "gemma", "interactive", 500, 120, clean))
                .isEqualTo("scenario interactive probes with 64 prompt / 32 max tokens, this ladder used 500 / 120 "
                        + "(run it with --prompt-tokens 64 --max-tokens 32)");
        // the same criterion as the history's baseline record: one error and there is no clean step
        assertThat(BaselineHandover.refusal(engine(), "gemma", "interactive", 64, 32, ladder(step(1, 4, 1, true))))
                .startsWith("no clean, complete concurrency-1 step");
    }
}
