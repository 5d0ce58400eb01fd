package io.tailwatch.core.probe;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/** Creates the engine client for a wire API. Adding an API = one client file and one entry here. */
public final class EngineClients {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private record Settings(URI base, String apiKey, Duration connectTimeout) {
    }

    private static final Map<String, Function<Settings, EngineClient>> APIS = Map.of(
            "ollama", s -> new OllamaClient(s.base(), s.apiKey(), s.connectTimeout()),
            "openai", s -> new OpenAiClient(s.base(), s.apiKey(), s.connectTimeout()));

    private EngineClients() {
    }

    public static EngineClient create(String api, URI url, String apiKey) {
        return create(api, url, apiKey, DEFAULT_CONNECT_TIMEOUT);
    }

    /** {@code apiKey} may be null; it is sent as a bearer token and never logged. */
    public static EngineClient create(String api, URI url, String apiKey, Duration connectTimeout) {
        Function<Settings, EngineClient> f = APIS.get(api);
        if (f == null) {
            throw new IllegalArgumentException("unknown engine API '" + api + "' (ollama or openai)");
        }
        return f.apply(new Settings(base(url), apiKey, connectTimeout));
    }

    /** Scheme, host and port of {@code url}, with a trailing slash or /v1 removed. */
    static URI base(URI url) {
        String s = url.toString();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.endsWith("/v1")) {
            s = s.substring(0, s.length() - 3);
        }
        return URI.create(s);
    }
}
