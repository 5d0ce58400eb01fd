package io.tailwatch.core.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/** The one JSON mapper: RFC 3339 timestamps, nulls (unknown values) left out. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(timeModule())
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private Json() {
    }

    public static String write(Object o) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The two java.time types the agent writes: {@link Instant} as RFC 3339 UTC text
     * ({@code 2026-11-30T04:07:06.973Z}) and {@link Duration} as ISO-8601 ({@code PT1.5S}), read back
     * from the same text (an Instant also from epoch seconds). Two serializers instead of the whole
     * jsr310 module keep about 75 classes out of the daemon's metaspace.
     */
    public static SimpleModule timeModule() {
        SimpleModule m = new SimpleModule("tailwatch-time");
        m.addSerializer(Instant.class, ToStringSerializer.instance);
        m.addSerializer(Duration.class, ToStringSerializer.instance);
        m.addDeserializer(Instant.class, new JsonDeserializer<>() {
            @Override
            public Instant deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                if (p.currentToken() == JsonToken.VALUE_NUMBER_INT || p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                    double s = p.getDoubleValue();
                    long whole = (long) Math.floor(s);
                    return Instant.ofEpochSecond(whole, Math.round((s - whole) * 1e9));
                }
                try {
                    return Instant.parse(p.getValueAsString());
                } catch (DateTimeException | NullPointerException e) {
                    return (Instant) ctx.handleWeirdStringValue(Instant.class, p.getValueAsString(),
                            "not an RFC 3339 UTC timestamp");
                }
            }
        });
        m.addDeserializer(Duration.class, new JsonDeserializer<>() {
            @Override
            public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                try {
                    return Duration.parse(p.getValueAsString());
                } catch (DateTimeException | NullPointerException e) {
                    return (Duration) ctx.handleWeirdStringValue(Duration.class, p.getValueAsString(),
                            "not an ISO-8601 duration");
                }
            }
        });
        return m;
    }
}
