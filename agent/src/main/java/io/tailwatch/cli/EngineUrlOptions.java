package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import picocli.CommandLine.Option;

/** --url, --api and --api-key-env: an engine not in the config, for the commands that also take --engine. */
final class EngineUrlOptions {
    @Option(names = "--url", paramLabel = "URL", description = "Engine base URL (instead of --engine).")
    String url;

    @Option(names = "--api", paramLabel = "API", completionCandidates = EngineApiNames.class,
            converter = EngineApiNames.class,
            description = "Engine API (with --url): ${COMPLETION-CANDIDATES}.")
    String api;

    @Option(names = "--api-key-env", paramLabel = "VAR", description = "Environment variable holding the API key (with --url).")
    String apiKeyEnv;

    /** The configured {@code engine}, or the engine these options name; see {@link EngineTarget#resolve}. */
    EngineTarget resolve(Config config, String engine) {
        return EngineTarget.resolve(config, engine, url, api, apiKeyEnv);
    }
}
