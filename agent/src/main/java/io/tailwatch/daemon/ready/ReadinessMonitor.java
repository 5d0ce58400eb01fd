package io.tailwatch.daemon.ready;

import io.javalin.http.Context;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.ReadyReason;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ReadinessMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Keeps each watched engine's last verdict and answers for it: the endpoint, the metrics, the status. Every
 * answer evaluates the engine's latest state again (no engine is contacted: the inputs are what the agent
 * already holds), so the proxy's in-flight count is current at each request and the other figures are as old as
 * their last sample. State is kept only for the engines {@code engines} lists now.
 */
public final class ReadinessMonitor {
    /** The route a health checker asks; {@code {name}} is the engine's configured name. */
    public static final String PATH = "/api/v1/engines/{name}/ready";

    /** The environment variable naming the file of the read-only token that opens only {@link #PATH}. */
    public static final String TOKEN_FILE_VARIABLE = "TAILWATCH_READY_TOKEN_FILE";
    private static final java.util.regex.Pattern READY_PATH = java.util.regex.Pattern.compile("/api/v1/engines/[^/]+/ready");

    private final Supplier<List<String>> engines;
    private final Function<String, ReadinessInput> inputs;
    private final Map<String, Verdict> last = new LinkedHashMap<>();

    /**
     * @param engines the engines watched now
     * @param inputs  the latest input of one engine (called only for a watched engine)
     */
    public ReadinessMonitor(Supplier<List<String>> engines, Function<String, ReadinessInput> inputs) {
        this.engines = engines;
        this.inputs = inputs;
    }

    /** The agent's monitor: verdicts of the engines {@code inputs} watches. */
    public static ReadinessMonitor of(AgentInputs inputs) {
        return new ReadinessMonitor(inputs::engines, inputs::input);
    }

    /** True for a path of {@link #PATH} (what the read-only token opens). */
    public static boolean readyPath(String path) {
        return path != null && READY_PATH.matcher(path).matches();
    }

    /**
     * The read-only token from the file {@link #TOKEN_FILE_VARIABLE} names, or null when the variable is not
     * set. A file that is empty or cannot be read is an error: the token is never silently off.
     */
    public static String readOnlyToken(Map<String, String> env) {
        String file = env.get(TOKEN_FILE_VARIABLE);
        if (file == null) {
            return null;
        }
        String token;
        try {
            token = file.isBlank() ? "" : java.nio.file.Files.readString(java.nio.file.Path.of(file)).strip();
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException(TOKEN_FILE_VARIABLE + ": cannot read the token file ("
                    + e.getClass().getSimpleName() + ")");
        }
        if (token.isEmpty()) {
            throw new IllegalArgumentException(TOKEN_FILE_VARIABLE + ": " + (file.isBlank() ? "the variable is empty"
                    : "the token file is empty"));
        }
        return token;
    }

    /** The verdict of {@code engine} now, or null when no engine of that name is watched. */
    public synchronized Verdict verdict(String engine) {
        if (engine == null || !engines.get().contains(engine)) {
            return null;
        }
        Verdict v = Readiness.evaluate(inputs.apply(engine), last.get(engine));
        last.put(engine, v);
        return v;
    }

    /** Every watched engine's verdict now, in the engines' order; forgets the engines no longer watched. */
    public synchronized Map<String, Verdict> verdicts() {
        List<String> names = engines.get();
        last.keySet().retainAll(names);
        Map<String, Verdict> out = new LinkedHashMap<>();
        for (String n : names) {
            out.put(n, verdict(n));
        }
        return out;
    }

    /** The hub series of every verdict: ready with its first reason, one series per reason, the headroom. */
    public List<Point> points() {
        List<Point> out = new ArrayList<>();
        verdicts().forEach((engine, v) -> {
            out.add(Point.of(ReadinessMetrics.READY, v.ready() ? 1 : 0, v.primary(), AttrKeys.ENGINE, engine));
            for (ReadyReason r : v.reasons()) {
                out.add(Point.of(ReadinessMetrics.REASONS, 1, r, AttrKeys.ENGINE, engine));
            }
            if (v.headroom() != null) {
                out.add(Point.of(ReadinessMetrics.HEADROOM, v.headroom(), AttrKeys.ENGINE, engine));
            }
        });
        return out;
    }

    /**
     * Answers {@link #PATH}: 200 with the verdict when the engine is ready, 503 with {@code Retry-After} when
     * it is not (or that is unknown), 404 when no engine of that name is watched.
     */
    public void answer(Context ctx) {
        String name = ctx.pathParam("name");
        Verdict v = verdict(name);
        if (v == null) {
            String shown = io.tailwatch.core.config.EngineConfig.NAME.matcher(name).matches() ? name : "(not an engine name)";
            ApiServer.json(ctx.status(404), Map.of("error", "no engine named " + shown + " is watched"));
            return;
        }
        if (!v.ready()) {
            ctx.header("Retry-After", Long.toString(v.retryAfterSeconds()));
        }
        ctx.header("Cache-Control", "no-store");
        ApiServer.json(ctx.status(v.ready() ? 200 : 503), v.toJson(name));
    }

    /**
     * Adds each engine's verdict, as {@code ready}, to the entries of the engines status part (a list of
     * maps keyed by {@code name}); other shapes are returned as they are.
     */
    public Object addTo(Object enginesPart) {
        if (!(enginesPart instanceof List<?> list)) {
            return enginesPart;
        }
        Map<String, Verdict> all = verdicts();
        List<Object> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (o instanceof Map<?, ?> m && m.get("name") instanceof String name && all.containsKey(name)) {
                Map<Object, Object> copy = new LinkedHashMap<>(m);
                copy.put("ready", all.get(name).toJson(name));
                out.add(copy);
            } else {
                out.add(o);
            }
        }
        return out;
    }
}
