package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import io.tailwatch.core.json.Json;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JsonTimeTest {
    record Stamp(Instant at, Duration took) {
    }

    @Test
    void instantsAndDurationsAreIsoTextBothWays() throws Exception {
        Stamp s = new Stamp(Instant.parse("2026-11-30T04:07:06.973123Z"), Duration.ofMillis(1500));
        String text = Json.MAPPER.writeValueAsString(s);
        assertThat(text).isEqualTo("{\"at\":\"2026-11-30T04:07:06.973123Z\",\"took\":\"PT1.5S\"}");
        assertThat(Json.MAPPER.readValue(text, Stamp.class)).isEqualTo(s);
        // whole seconds print without a fraction; nulls are left out
        assertThat(Json.MAPPER.writeValueAsString(new Stamp(Instant.ofEpochSecond(0), null)))
                .isEqualTo("{\"at\":\"1970-01-01T00:00:00Z\"}");
    }

    @Test
    void instantsAlsoReadFromEpochSeconds() throws Exception {
        assertThat(Json.MAPPER.readValue("{\"at\":1764475626.5}", Stamp.class).at())
                .isEqualTo(Instant.ofEpochSecond(1764475626L, 500_000_000L));
        assertThat(Json.MAPPER.readValue("{\"at\":1764475626}", Stamp.class).at())
                .isEqualTo(Instant.ofEpochSecond(1764475626L));
    }

    @Test
    void badTextNamesTheValue() {
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"at\":\"yesterday\"}", Stamp.class))
                .isInstanceOf(InvalidFormatException.class).hasMessageContaining("yesterday")
                .hasMessageContaining("RFC 3339");
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"took\":\"5 minutes\"}", Stamp.class))
                .isInstanceOf(InvalidFormatException.class).hasMessageContaining("5 minutes");
    }
}
