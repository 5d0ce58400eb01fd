package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * vllm-mlx's {@code GET /v1/status}, served with or without {@code --enable-metrics} (behind its API key when
 * it has one): {@code num_running} and {@code num_waiting} of its scheduler while {@code status} is
 * {@code running}, and for the details the Metal memory, the cache figures, the generation rate and the age of
 * the oldest waiting request ({@code requests[].elapsed_s} where {@code status} is {@code waiting}). A server
 * with no model loaded ({@code not_loaded}), or one managing several models ({@code model_manager}), gives no
 * counts: unknown, not 0.
 */
public final class VllmMlxStatusSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.VLLM_MLX_STATUS.value();
    public static final String PATH = "/v1/status";

    /** The arguments of the engine's own server process (the host's process table in the daemon), or null. */
    public interface ServerArgs {
        java.util.List<String> read() throws java.io.IOException;
    }

    /** The command line is read again after this many reads (a restart may bring other flags). */
    static final int REREAD_EVERY = 10;
    private volatile ServerArgs serverArgs;
    private VllmMlxServeArgs.Batch batch;
    private int readsSinceArgs = REREAD_EVERY;

    public VllmMlxStatusSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    /**
     * Reads the batch size from the server's own command line ({@link VllmMlxServeArgs}) where {@code args} finds
     * it: a server on this host. Its details then carry {@code batch_size} and {@code batch_size_from}
     * {@code command_line}.
     */
    public VllmMlxStatusSource serverArgs(ServerArgs args) {
        this.serverArgs = args;
        return this;
    }

    /** A /v1/status answer of vllm-mlx: a {@code status} text and its {@code residency} or {@code model_manager} part. */
    static boolean looksLikeVllmMlx(JsonNode n) {
        return n != null && n.isObject() && n.path("status").isTextual() && (n.has("residency") || n.path("model_manager").isObject());
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        EngineSignals s = parse(getObject(deadline));
        VllmMlxServeArgs.Batch b = batch();
        if (b == null) {
            return s;
        }
        Map<String, Object> more = new LinkedHashMap<>();
        more.put(LmStudioModelsSource.BATCH_SIZE, (double) b.size());
        more.put(BATCH_SIZE_FROM, COMMAND_LINE);
        more.put("batch_size_basis", b.basis());
        return s.withCounts(s.running(), s.waiting(), s.requestsSource(), more);
    }

    /** The details key saying where the batch size comes from. */
    static final String BATCH_SIZE_FROM = "batch_size_from";
    static final String COMMAND_LINE = "command_line";

    private synchronized VllmMlxServeArgs.Batch batch() {
        ServerArgs a = serverArgs;
        if (a == null) {
            return null;
        }
        if (++readsSinceArgs >= REREAD_EVERY) {
            readsSinceArgs = 0;
            try {
                batch = VllmMlxServeArgs.batch(a.read());
            } catch (java.io.IOException | RuntimeException e) {
                batch = null; // the process table could not be read: the figure is unknown this time
            }
        }
        return batch;
    }

    /** Reads one answer, a JSON object. */
    static EngineSignals parse(JsonNode n) throws SignalFailure {
        JsonNode status = n.get("status");
        if (status == null || !status.isTextual()) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "no status field");
        }
        Map<String, Object> details = new LinkedHashMap<>();
        VllmMlxFigures.details(n, details);
        if (!"running".equals(status.asText()) || n.has("model_manager")) {
            return new EngineSignals(null, null, null, null, null, details);
        }
        Double running = counted(n, "num_running");
        Double waiting = counted(n, "num_waiting");
        return new EngineSignals(running, waiting, null, null, null, details);
    }

    /** A count field: absent is unknown; present but not a whole number in range is malformed or dropped. */
    private static Double counted(JsonNode n, String field) throws SignalFailure {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, field + " is not a number: " + EngineEndpoint.clip(v.toString()).trim());
        }
        Long c = InputRange.count(VllmMlxFigures.SOURCE, field, v, (long) InputRange.MAX_REQUESTS);
        return c == null ? null : c.doubleValue();
    }
}
