package io.tailwatch.core.probe;

import java.net.URI;
import java.time.Duration;

/** Creates the engine client for a wire API named in a config or on the command line (see {@link EngineApi}). */
public final class EngineClients {
    /** The engine's connect deadline when the config sets none (engine {@code connect_timeout}). */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private EngineClients() {
    }

    public static EngineClient create(String api, URI url, String apiKey) {
        return create(api, url, apiKey, DEFAULT_CONNECT_TIMEOUT);
    }

    /** {@code apiKey} may be null; it is sent as a bearer token and never logged. */
    public static EngineClient create(String api, URI url, String apiKey, Duration connectTimeout) {
        return EngineApi.of(api).client(url, apiKey, connectTimeout);
    }
}
