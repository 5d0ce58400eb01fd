package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LadderOptionsTest {
    static LadderOptions options(Integer requestsPerLevel) {
        return new LadderOptions(null, List.of(1, 2, 4), requestsPerLevel, 500, 120, 0.0, Duration.ofMinutes(15), 500,
                false, new StopRules(3, 0, 1L << 30), Duration.ofMinutes(2), Duration.ofMinutes(5));
    }

    @Test
    void the_report_states_every_parameter_and_the_default_requests_per_level_as_its_rule() {
        assertThat(options(null).parameters(false)).containsExactly(
                java.util.Map.entry("levels", List.of(1, 2, 4)),
                java.util.Map.entry("requests_per_level", "max(5, 3 x level)"),
                java.util.Map.entry("prompt_tokens", 500),
                java.util.Map.entry("max_tokens", 120),
                java.util.Map.entry("temperature", 0.0),
                java.util.Map.entry("max_duration", "15m"),
                java.util.Map.entry("max_requests", 500),
                java.util.Map.entry("request_timeout", "5m"),
                java.util.Map.entry("continue_after_stop", false),
                java.util.Map.entry("forced", false));
        assertThat(options(7).parameters(true)).containsEntry("requests_per_level", 7).containsEntry("forced", true);
        assertThat(options(7).withModel("gemma").model()).isEqualTo("gemma");
        assertThat(options(7).withModel("gemma").requestsAt(4)).isEqualTo(7);
        assertThat(options(null).requestsAt(4)).isEqualTo(12);
    }

    @Test
    void the_bench_states_its_runs_shape_cool_down_and_force() {
        Bench.Options o = new Bench.Options(3, 500, 256, Duration.ofMinutes(5), Duration.ofMinutes(5),
                Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1), true);
        assertThat(o.parameters()).containsExactly(
                java.util.Map.entry("runs", 3),
                java.util.Map.entry("prompt_tokens", 500),
                java.util.Map.entry("max_tokens", 256),
                java.util.Map.entry("temperature", 0.0),
                java.util.Map.entry("cool_down", "5s"),
                java.util.Map.entry("cool_down_wait", "30s"),
                java.util.Map.entry("forced", true));
    }
}
