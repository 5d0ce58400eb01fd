package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttrValues;
import io.tailwatch.metrics.EngineMetrics;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The engine API registry and the catalog's tailwatch.engine.api values name the same APIs. */
class EngineApiAttributeTest {
    @Test
    void everyRegisteredApiIsAnAllowedAttributeValueAndNoOther() {
        assertThat(EngineApi.names()).containsExactlyElementsOf(
                Arrays.stream(AttrValues.EngineApi.values()).map(AttrValue::value).toList());
        assertThat(EngineMetrics.INFO.attribute(AttrValues.EngineApi.OLLAMA.key()).allowed())
                .containsExactlyElementsOf(EngineApi.names());
        for (EngineApi api : EngineApi.values()) {
            assertThat(AttrValues.find(AttrValues.EngineApi.class, api.wireName())).as(api.wireName()).isNotNull();
        }
    }
}
