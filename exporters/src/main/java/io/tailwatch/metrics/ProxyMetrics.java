package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;
import static io.tailwatch.metrics.AttributeDef.optional;

import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import io.tailwatch.metrics.AttrValues.TokenSource;
import io.tailwatch.metrics.AttrValues.TokenType;
import java.util.List;

/**
 * The real requests an engine's metering proxy passes through: OpenTelemetry GenAI server metrics
 * ({@code gen_ai.server.*}) measured from the stream on its way, with the lane of each request, and the
 * proxy's own counts. Every series is per configured engine; lanes come from the config, models from the
 * engine's answers (bounded by the hub like every label).
 */
public final class ProxyMetrics {
    private ProxyMetrics() {
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");
    static final AttributeDef LANE = free(AttrKeys.LANE, "Lane of the request (config lanes; default for the rest)");
    static final AttributeDef RESPONSE_MODEL = optional(AttrKeys.RESPONSE_MODEL,
            "Model the engine says answered (when its answer names one)");
    static final AttributeDef ERROR_TYPE = optional(AttrKeys.ERROR_TYPE,
            "Failure class (failures only): http_<status>, stream_error, malformed, cut, upstream_unreachable, "
                    + "upstream_timeout, upstream_failed, client_disconnect");
    static final AttributeDef OUTCOME = oneOf(AttrKeys.PROXY_OUTCOME, "How the request ended", ProxyOutcome.class);

    public static final MetricDef REQUEST_DURATION = MetricDef.histogram("gen_ai.server.request.duration", "s",
            "Duration of a real generation request through the engine's proxy, from the request's arrival to the last "
                    + "byte of the answer (or the failure).", ProbeMetrics.DURATION_BUCKETS,
            ENGINE, LANE, RESPONSE_MODEL, ERROR_TYPE);

    public static final MetricDef TIME_TO_FIRST_TOKEN = MetricDef.histogram("gen_ai.server.time_to_first_token", "s",
            "Time from a streamed request's arrival at the proxy to the first chunk with content or reasoning.",
            ProbeMetrics.DURATION_BUCKETS, ENGINE, LANE, RESPONSE_MODEL);

    public static final MetricDef TIME_PER_OUTPUT_TOKEN = MetricDef.histogram("gen_ai.server.time_per_output_token", "s",
            "Decode time per output token of a streamed request after the first: (last chunk - first chunk) / "
                    + "(output tokens - 1).", ProbeMetrics.CHUNK_BUCKETS, ENGINE, LANE, RESPONSE_MODEL);

    public static final MetricDef ENGINE_TIME_TO_FIRST_TOKEN = MetricDef.histogram(
            "tailwatch.proxy.engine.time_to_first_token", "s",
            "Time to first token of a generation request through the proxy as the engine itself reports it in its answer "
                    + "(LM Studio 0.4's native chat: stats.time_to_first_token_seconds), streamed or whole. Beside "
                    + "gen_ai.server.time_to_first_token, measured from the request's arrival at the proxy, the difference "
                    + "is what lies outside the engine's own clock. Absent where the engine reports none.",
            ProbeMetrics.DURATION_BUCKETS, ENGINE, LANE);

    public static final MetricDef ENGINE_TIME_PER_OUTPUT_TOKEN = MetricDef.histogram(
            "tailwatch.proxy.engine.time_per_output_token", "s",
            "Decode time per output token of a generation request through the proxy as the engine itself reports it: "
                    + "1 / its decode rate (LM Studio's stats.tokens_per_second, llama.cpp's timings.predicted_per_second, "
                    + "Ollama's eval_count / eval_duration). Beside gen_ai.server.time_per_output_token, read from the "
                    + "chunks' arrival; also for whole answers, which have no chunk times. Absent where the engine reports "
                    + "none.", ProbeMetrics.CHUNK_BUCKETS, ENGINE, LANE);

    public static final MetricDef TOKEN_USAGE = MetricDef.histogram("tailwatch.proxy.token.usage", "{token}",
            "Tokens per generation request through the proxy (the GenAI token usage, measured at the server side).",
            ProbeMetrics.TOKEN_BUCKETS, ENGINE, LANE, RESPONSE_MODEL,
            oneOf(AttrKeys.TOKEN_TYPE, "input or output", TokenType.class),
            oneOf(AttrKeys.TOKEN_SOURCE, "usage: the answer's usage block; engine: the engine's own counters; "
                    + "estimate: one token per content chunk (the engine told none)", TokenSource.class));

    public static final MetricDef TIME_TO_FIRST_BYTE = MetricDef.histogram("tailwatch.proxy.time_to_first_byte", "s",
            "Time from a request's arrival at the proxy to the engine's response headers: queueing in a serial engine "
                    + "shows here.", ProbeMetrics.DURATION_BUCKETS, ENGINE, LANE);

    public static final MetricDef REQUESTS = MetricDef.counter("tailwatch.proxy.requests", "{request}",
            "Requests through the engine's proxy, by lane and how they ended.", ENGINE, LANE, OUTCOME);

    public static final MetricDef IN_FLIGHT = MetricDef.gauge("tailwatch.proxy.in_flight", "{request}",
            "Requests through the proxy the engine has not finished answering (a serial engine's queue is this minus "
                    + "its slots).", ENGINE);

    public static final MetricDef OUTPUT_TOKENS = MetricDef.counter("tailwatch.proxy.output.tokens", "{token}",
            "Output tokens of the generation requests through the proxy, by lane.", ENGINE, LANE,
            oneOf(AttrKeys.TOKEN_SOURCE, "Where the count comes from", TokenSource.class));

    public static final MetricDef LANE_GOOD = MetricDef.counter("tailwatch.proxy.lane.good", "{request}",
            "Requests of a lane with an SLO that met it: ended well, first token within ttft_p95 and done within e2e_p95. "
                    + "Goodput = its rate over the rate of tailwatch.proxy.requests of the lane.", ENGINE, LANE);

    public static final MetricDef LANE_SLO_TARGET = MetricDef.gauge("tailwatch.proxy.lane.slo.target", "1",
            "The share of a lane's requests that should meet its SLO (from the config).", ENGINE, LANE);

    public static final MetricDef LANE_SLO_TTFT = MetricDef.gauge("tailwatch.proxy.lane.slo.ttft", "s",
            "A lane's TTFT limit (ttft_p95 in the config).", ENGINE, LANE);

    public static final MetricDef LANE_SLO_E2E = MetricDef.gauge("tailwatch.proxy.lane.slo.e2e", "s",
            "A lane's end-to-end limit (e2e_p95 in the config).", ENGINE, LANE);

    // ---- each lane over its rolling window: what the lane rules and diagnose read ----

    public static final MetricDef LANE_WINDOW_REQUESTS = MetricDef.gauge("tailwatch.proxy.lane.window.requests", "{request}",
            "Requests of a lane that ended within the lane window (the last 5 minutes, at most the last 512 requests).",
            ENGINE, LANE);

    public static final MetricDef LANE_WINDOW_GOODPUT = MetricDef.gauge("tailwatch.proxy.lane.window.goodput", "1",
            "Share of a lane's requests in the lane window that met its SLO (lanes with an SLO that had requests).",
            ENGINE, LANE);

    public static final MetricDef LANE_WINDOW_TTFT = MetricDef.gauge("tailwatch.proxy.lane.window.ttft", "s",
            "Time-to-first-token percentile of a lane's streamed requests in the lane window (nearest rank).",
            ENGINE, LANE, ProbeMetrics.PERCENTILE);

    public static final MetricDef LANE_WINDOW_E2E = MetricDef.gauge("tailwatch.proxy.lane.window.e2e", "s",
            "End-to-end duration percentile of a lane's generation requests in the lane window (nearest rank).",
            ENGINE, LANE, ProbeMetrics.PERCENTILE);

    public static final MetricDef LANE_WINDOW_QUEUE_WAIT = MetricDef.gauge("tailwatch.proxy.lane.window.queue.wait", "s",
            "Percentile of the time a lane's requests in the lane window waited for the engine's response headers: "
                    + "a serial engine holds its headers while a request queues (nearest rank).",
            ENGINE, LANE, ProbeMetrics.PERCENTILE);

    public static final MetricDef LANE_WINDOW_IN_FLIGHT = MetricDef.gauge("tailwatch.proxy.lane.window.in_flight", "{request}",
            "Mean number of a lane's requests in flight over the lane window (time in flight / the window): each lane's "
                    + "share of an engine's load.", ENGINE, LANE);

    public static final List<MetricDef> ALL = List.of(REQUEST_DURATION, TIME_TO_FIRST_TOKEN, TIME_PER_OUTPUT_TOKEN,
            ENGINE_TIME_TO_FIRST_TOKEN, ENGINE_TIME_PER_OUTPUT_TOKEN, TOKEN_USAGE, TIME_TO_FIRST_BYTE, REQUESTS, IN_FLIGHT, OUTPUT_TOKENS, LANE_GOOD, LANE_SLO_TARGET, LANE_SLO_TTFT,
            LANE_SLO_E2E, LANE_WINDOW_REQUESTS, LANE_WINDOW_GOODPUT, LANE_WINDOW_TTFT, LANE_WINDOW_E2E, LANE_WINDOW_QUEUE_WAIT,
            LANE_WINDOW_IN_FLIGHT);
}
