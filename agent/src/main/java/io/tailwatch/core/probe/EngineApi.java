package io.tailwatch.core.probe;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The engine wire APIs the agent speaks: the one list. The config's {@code api:} key, the command
 * line's {@code --api} options, engine discovery and the help texts all read it. Adding an API is one
 * client file (an {@link EngineClient}) and one line here.
 */
public enum EngineApi {
    OLLAMA("ollama", "Ollama's native API (/api/chat, /api/ps, /api/show)", List.of(11434), OllamaClient::new),
    OPENAI("openai", "OpenAI-compatible /v1 (mlx_lm.server, mlx_vlm, LM Studio, llama.cpp, vLLM)",
            List.of(8080, 1234, 8000), OpenAiClient::new);

    /** Makes the client of one engine; {@code base} is already reduced to scheme, host and port. */
    interface Factory {
        EngineClient create(URI base, String apiKey, Duration connectTimeout);
    }

    private final String wireName;
    private final String description;
    private final List<Integer> wellKnownPorts;
    private final Factory factory;

    EngineApi(String wireName, String description, List<Integer> wellKnownPorts, Factory factory) {
        this.wireName = wireName;
        this.description = description;
        this.wellKnownPorts = List.copyOf(wellKnownPorts);
        this.factory = factory;
    }

    /** The name in configs, on the command line and in the {@code tailwatch.engine.api} attribute. */
    public String wireName() {
        return wireName;
    }

    public String description() {
        return description;
    }

    /** The loopback ports engines of this API listen on by default (checked by engine discovery). */
    public List<Integer> wellKnownPorts() {
        return wellKnownPorts;
    }

    /** The client for the engine at {@code url}; {@code apiKey} may be null (sent as a bearer token, never logged). */
    public EngineClient client(URI url, String apiKey, Duration connectTimeout) {
        return factory.create(base(url), apiKey, connectTimeout);
    }

    @Override
    public String toString() {
        return wireName;
    }

    /** The API called {@code name} (as written in a config), if there is one. */
    public static Optional<EngineApi> find(String name) {
        for (EngineApi a : values()) {
            if (a.wireName.equals(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** The API called {@code name}; IllegalArgumentException listing the valid names otherwise. */
    public static EngineApi of(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("unknown engine API '"
                + (name == null ? "" : name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "?"))
                + "' (" + choices() + ")"));
    }

    /** Every API name, in declaration order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(EngineApi::wireName).toList();
    }

    /** The names for a help text or an error: "ollama or openai", "a, b or c". */
    public static String choices() {
        List<String> n = names();
        if (n.size() == 1) {
            return n.get(0);
        }
        return String.join(", ", n.subList(0, n.size() - 1)) + " or " + n.get(n.size() - 1);
    }

    /** Every API's well-known ports, in declaration order, without repeats. */
    public static List<Integer> allWellKnownPorts() {
        List<Integer> out = new ArrayList<>();
        for (EngineApi a : values()) {
            for (int p : a.wellKnownPorts) {
                if (!out.contains(p)) {
                    out.add(p);
                }
            }
        }
        return List.copyOf(out);
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
