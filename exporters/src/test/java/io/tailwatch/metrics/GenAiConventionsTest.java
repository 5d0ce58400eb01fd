package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** OTEL_SEMCONV_STABILITY_OPT_IN read as the conventions' migration rule says. */
class GenAiConventionsTest {
    @Test
    void theDefaultKeeps141AndTheOptInValuesChoose() {
        assertThat(GenAiConventions.from(null)).isEqualTo(GenAiConventions.V1_41);
        assertThat(GenAiConventions.from("")).isEqualTo(GenAiConventions.V1_41);
        assertThat(GenAiConventions.from("http,database/dup")).isEqualTo(GenAiConventions.V1_41);
        assertThat(GenAiConventions.from("gen_ai_latest_experimental")).isEqualTo(GenAiConventions.LATEST);
        assertThat(GenAiConventions.from(" http , gen_ai_latest_experimental ")).isEqualTo(GenAiConventions.LATEST);
        assertThat(GenAiConventions.from("gen_ai_latest_experimental/dup")).isEqualTo(GenAiConventions.DUP);
        // Both listed: /dup wins, in either order.
        assertThat(GenAiConventions.from("gen_ai_latest_experimental,gen_ai_latest_experimental/dup")).isEqualTo(GenAiConventions.DUP);
        assertThat(GenAiConventions.from("gen_ai_latest_experimental/dup,gen_ai_latest_experimental")).isEqualTo(GenAiConventions.DUP);
        // Unknown values are ignored, a misspelt one included.
        assertThat(GenAiConventions.from("gen_ai_latest_experimentl,gen_ai")).isEqualTo(GenAiConventions.V1_41);
        assertThat(GenAiConventions.V1_41.v141()).isTrue();
        assertThat(GenAiConventions.V1_41.latest()).isFalse();
        assertThat(GenAiConventions.LATEST.v141()).isFalse();
        assertThat(GenAiConventions.DUP.v141() && GenAiConventions.DUP.latest()).isTrue();
    }
}
