package io.tailwatch.core.host;

import io.tailwatch.core.config.EngineConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/** Engine configs for tests. */
public final class Engines {
    private Engines() {
    }

    public static EngineConfig engine(String name, String url, String... processNames) {
        return new EngineConfig(name, "openai", URI.create(url), null, null, Duration.ofSeconds(15), Duration.ofSeconds(5),
                true, List.of(), List.of(processNames), null);
    }
}
