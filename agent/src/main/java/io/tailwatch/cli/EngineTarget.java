package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import java.net.URI;

/**
 * The engine a runbook command talks to: a configured engine ({@code --engine NAME}, which also
 * brings its API key and the process names whose footprint is reported) or an ad-hoc
 * {@code --url} with {@code --api}.
 *
 * @param name engine name for reports and history (the URL's host:port for ad-hoc targets)
 * @param configured true when it came from the config (its processes are sampled by name)
 * @param connectTimeout the engine's connect_timeout from the config; the default for an ad-hoc --url
 */
record EngineTarget(String name, String api, URI url, String apiKey, String model, boolean configured,
                    java.time.Duration connectTimeout) {

    /** Resolves the target or throws IllegalArgumentException with a message naming the option. */
    static EngineTarget resolve(Config config, String engine, String url, String api, String apiKeyEnv) {
        if (engine != null && url != null) {
            throw new IllegalArgumentException("give either --engine NAME or --url URL --api API, not both");
        }
        if (engine != null) {
            EngineConfig e = config.engine(engine);
            if (e == null) {
                StringBuilder names = new StringBuilder();
                config.engines().forEach(x -> names.append(names.length() == 0 ? "" : ", ").append(x.name()));
                throw new IllegalArgumentException("--engine: no engine named '" + engine + "' in " + config.source()
                        + " (configured: " + (names.length() == 0 ? "none" : names) + ")");
            }
            return new EngineTarget(e.name(), e.api(), e.url(), e.apiKey(), e.model(), true, e.connectTimeout());
        }
        if (url == null) {
            throw new IllegalArgumentException("give --engine NAME (from the config) or --url URL with --api "
                    + String.join("|", io.tailwatch.core.probe.EngineApi.names()));
        }
        if (api == null) {
            throw new IllegalArgumentException("--api must be " + io.tailwatch.core.probe.EngineApi.choices() + " with --url");
        }
        EngineApiNames.parse("--api", api);
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--url: not a URL: " + url);
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw new IllegalArgumentException("--url must be http://HOST[:PORT] or https://..., got " + url);
        }
        String key = null;
        if (apiKeyEnv != null) {
            key = System.getenv(apiKeyEnv);
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("--api-key-env: environment variable " + apiKeyEnv + " is not set");
            }
        }
        String name = u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
        return new EngineTarget(name, api, u, key, null, false, EngineConfig.DEFAULT_CONNECT_TIMEOUT);
    }
}
