package io.tailwatch.probe;

/**
 * The one HTTP client of an engine (Ollama native or OpenAI-compatible), shared by the daemon's
 * probes and the runbook commands (probe, ladder, bench). Implementations are thread-safe, reuse
 * connections, and never block past the request's deadlines.
 */
public interface EngineClient extends AutoCloseable {
    /** Sends one streaming request and measures it; never throws for engine faults. */
    ProbeResult probe(ProbeRequest request);

    @Override
    default void close() {
    }
}
