package io.tailwatch.core.probe;

import io.tailwatch.core.kv.ModelShape;
import java.net.URI;
import java.time.Duration;

/**
 * The one HTTP client of an engine (Ollama native or OpenAI-compatible), shared by the daemon's
 * probes and the runbook commands (probe, ladder, bench). Implementations are thread-safe, reuse
 * connections, and never block past the request's deadlines. Create them with
 * {@link EngineClients#create}.
 */
public interface EngineClient extends AutoCloseable {
    /**
     * The model a probe names when it should be served by whatever the engine serves by default: it goes out
     * without a {@code model} field (what mlx_lm.server's own clients send when they name none; its answers then
     * echo this very string), so the engine neither loads another model nor starts a batch of its own for it.
     */
    String UNNAMED_MODEL = "default_model";

    /**
     * What reports and labels say for the model of a request that named none ({@link #UNNAMED_MODEL}) where the
     * model the server serves is not known: never the placeholder its answers echo.
     */
    String UNKNOWN_MODEL = "unknown";

    /**
     * The model a report or label records for a request that asked for {@code asked}: that name, but for a request
     * that named none, {@code served} (the model the server was started with, where that is known), else
     * {@link #UNKNOWN_MODEL}. Null stays null.
     */
    static String recordedModel(String asked, String served) {
        if (!UNNAMED_MODEL.equals(asked)) {
            return asked;
        }
        return served != null ? served : UNKNOWN_MODEL;
    }

    /**
     * The model an answer says served it: the name it gave, but for the placeholder an mlx_lm answer echoes when
     * the request named none, {@code served} (null when that is not known). Null stays null.
     */
    static String answeredModel(String echoed, String served) {
        return UNNAMED_MODEL.equals(echoed) ? served : echoed;
    }

    /** Sends one streaming request and measures it; never throws for engine faults. */
    ProbeResult probe(ProbeRequest request);

    /** Health and loaded-model inventory within {@code deadline}; never throws for engine faults. */
    EngineHealth health(Duration deadline);

    /** The model a probe without a model should use (the first loaded one), or null when none is. */
    String defaultModel(Duration deadline);

    /**
     * The KV-cache shape of {@code model} (layers, KV heads, key and value lengths) as the engine reports
     * it, within {@code deadline}. Throws naming the request when the engine cannot tell; an API without
     * such a request throws with {@link EngineQueryException#unsupported()} set.
     */
    default ModelShape modelShape(String model, Duration deadline) throws EngineQueryException {
        throw new EngineQueryException("the " + api() + " API does not tell a model's architecture", true);
    }

    /**
     * What the engine says it serves, as KV-cache sizing takes it (context per slot and in all, slots, the
     * served model's path and weights), within {@code deadline}: a llama.cpp server tells it in /props and
     * /v1/models. Throws naming the request when the engine cannot tell; an API without such a request throws
     * with {@link EngineQueryException#unsupported()} set.
     */
    default io.tailwatch.core.kv.EngineReport servingReport(Duration deadline) throws EngineQueryException {
        throw new EngineQueryException("the " + api() + " API does not tell what it serves", true);
    }

    /** Digest, format and quantization of {@code model}'s weights within {@code deadline}; never throws. */
    default ModelFacts modelFacts(String model, Duration deadline) {
        return ModelFacts.UNKNOWN;
    }

    /** How many requests an engine generates at once, and where the figure comes from. */
    record Parallelism(int slots, String source) {
    }

    /**
     * How many requests the engine generates at once, as it reports it (llama.cpp: {@code /props}
     * {@code total_slots}), within {@code deadline}; null when the API or the engine does not tell.
     */
    default Parallelism parallelism(Duration deadline) {
        return null;
    }

    /**
     * Frees {@code model}'s memory now, within {@code deadline}. False when the API has no such request
     * or the engine refused.
     */
    default boolean unload(String model, Duration deadline) {
        return false;
    }

    /** The wire API this client speaks. */
    EngineApi api();

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
