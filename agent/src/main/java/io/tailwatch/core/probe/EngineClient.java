package io.tailwatch.core.probe;

import java.net.URI;
import java.time.Duration;

/**
 * The one HTTP client of an engine (Ollama native or OpenAI-compatible), shared by the daemon's
 * probes and the runbook commands (probe, ladder, bench). Implementations are thread-safe, reuse
 * connections, and never block past the request's deadlines. Create them with
 * {@link EngineClients#create}.
 */
public interface EngineClient extends AutoCloseable {
    /** Sends one streaming request and measures it; never throws for engine faults. */
    ProbeResult probe(ProbeRequest request);

    /** Health and loaded-model inventory within {@code deadline}; never throws for engine faults. */
    EngineHealth health(Duration deadline);

    /** The model a probe without a model should use (the first loaded one), or null when none is. */
    String defaultModel(Duration deadline);

    /** Wire API: ollama or openai. */
    String api();

    /** The engine's base URL (scheme, host, port; no /v1). */
    URI baseUri();

    /**
     * Aborts the streaming requests in flight (their connections are closed; they end as failures at
     * once). Used when a runbook command is interrupted. Safe from any thread.
     */
    default void abort() {
    }

    @Override
    default void close() {
    }
}
