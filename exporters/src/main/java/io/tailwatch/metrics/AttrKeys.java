package io.tailwatch.metrics;

/**
 * Attribute keys, decided once and shared by every metric, producer, rule and dashboard: the same
 * thing carries the same key everywhere, so series join in PromQL without label_replace. Keys the
 * OpenTelemetry semantic conventions define are used as they are ({@code gen_ai.*}, {@code error.type},
 * {@code hw.*}, {@code system.*}); everything else lives in the {@code tailwatch.} namespace.
 * On {@code /metrics} the dots become underscores ({@link #label(String)}).
 */
public final class AttrKeys {
    private AttrKeys() {
    }

    /** Configured engine name (the {@code name} of an entry under {@code engines:}). */
    public static final String ENGINE = "tailwatch.engine.name";
    public static final String ENGINE_API = "tailwatch.engine.api";
    public static final String ENGINE_VERSION = "tailwatch.engine.version";
    public static final String REQUEST_STATE = "tailwatch.engine.request.state";
    public static final String SIGNAL_SOURCE = "tailwatch.engine.signal.source";
    public static final String QUEUE_WAIT_SOURCE = "tailwatch.queue.wait.source";
    /** What an engine's running/waiting counts are measured from ({@code AttrValues.RequestsSource}). */
    public static final String REQUESTS_SOURCE = "tailwatch.engine.requests.source";
    /** Why an engine is not ready for one more request ({@code AttrValues.ReadyReason}). */
    public static final String READY_REASON = "tailwatch.engine.ready.reason";
    /** Probe scenario name. */
    public static final String SCENARIO = "tailwatch.scenario";
    /** Model name, as requested from (and listed by) the engine. */
    public static final String MODEL = "gen_ai.request.model";
    /** Model name the engine says answered a request. */
    public static final String RESPONSE_MODEL = "gen_ai.response.model";
    /** semconv GenAI operation of a probe: chat, text_completion. */
    public static final String OPERATION = "gen_ai.operation.name";
    /** semconv GenAI provider: the engine kind. */
    public static final String PROVIDER = "gen_ai.provider.name";
    /** semconv token type: input, output. */
    public static final String TOKEN_TYPE = "gen_ai.token.type";
    /** semantic-conventions-genai token modality of the usage counters: text (the probes send and read text). */
    public static final String TOKEN_MODALITY = "gen_ai.token.modality";
    public static final String SERVER_ADDRESS = "server.address";
    public static final String SERVER_PORT = "server.port";
    /** semconv Java runtime name and version. */
    public static final String RUNTIME_NAME = "process.runtime.name";
    public static final String RUNTIME_VERSION = "process.runtime.version";
    /** Failure class. */
    public static final String ERROR_TYPE = "error.type";
    /** Percentile of a rolling window: p50, p95, p99. */
    public static final String PERCENTILE = "tailwatch.percentile";
    public static final String SKIP_REASON = "tailwatch.probe.skip.reason";
    public static final String MODEL_MEMORY_KIND = "tailwatch.model.memory.kind";
    public static final String TOKEN_SOURCE = "tailwatch.token.source";
    public static final String SAMPLER = "tailwatch.sampler.name";
    /** Where a number from outside came from (an engine's stream, its model list, its own figures). */
    public static final String INPUT_SOURCE = "tailwatch.input.source";
    /** The field that carried a number out of its range. */
    public static final String INPUT_FIELD = "tailwatch.input.field";
    /** Whether a sampler runs, or why the native self-check keeps it out: running, crashed, timed_out. */
    public static final String SAMPLER_STATUS = "tailwatch.sampler.status";
    /** Whether a power rail's counter moves: measured, frozen. */
    public static final String RAIL_STATUS = "tailwatch.power.rail.status";
    /** Which host power figure an energy figure rests on: rails (the summed rails) or system (the whole host). */
    public static final String POWER_SOURCE = "tailwatch.power.source";
    /** Which counters a rail's figure comes from: energy_model (IOReport) or clpc (the AppleCLPC driver). */
    public static final String RAIL_SOURCE = "tailwatch.power.rail.source";
    /** Whether a rail's figure is measured for the rail itself (exact) or split from a larger total (estimated). */
    public static final String POWER_EXACTNESS = "tailwatch.power.exactness";
    public static final String BUILD_VERSION = "tailwatch.build.version";
    public static final String ALERT_NAME = "tailwatch.alert.name";
    /** What became of a webhook notification: sent, failed, dropped, suppressed. */
    public static final String WEBHOOK_OUTCOME = "tailwatch.webhook.outcome";
    /** Scope of a thermal throttle counter: core or package. */
    public static final String THROTTLE_SCOPE = "tailwatch.cpu.throttle.scope";
    public static final String ALERT_SEVERITY = "tailwatch.alert.severity";
    public static final String PSI_KIND = "tailwatch.psi.kind";
    public static final String PSI_WINDOW = "tailwatch.psi.window";
    public static final String MEMORY_PAGE_STATE = "tailwatch.memory.page.state";
    /** semconv memory state: used, free, cached, buffers. */
    public static final String MEMORY_STATE = "system.memory.state";
    /** semconv swap state: used, free. */
    public static final String PAGING_STATE = "system.paging.state";
    /** semconv paging direction: in, out. */
    public static final String PAGING_DIRECTION = "system.paging.direction";
    /** The lane of a request passing through an engine's proxy (from the config's lanes; default for the rest). */
    public static final String LANE = "tailwatch.lane";
    /** How a request through an engine's proxy ended: ok, or the failure class. */
    public static final String PROXY_OUTCOME = "tailwatch.proxy.outcome";
    /** Why the HTTP listener refused a request's credentials. */
    public static final String AUTH_FAILURE_REASON = "tailwatch.http.auth.failure.reason";

    /** semconv CPU mode: user, system, idle, ... */
    public static final String CPU_MODE = "cpu.mode";
    /** semconv logical CPU number [0..n-1] of a per-CPU series. */
    public static final String CPU_LOGICAL_NUMBER = "cpu.logical_number";
    /** Where an engine's memory figure came from: pss (smaps_rollup) or rss (its fallback). */
    public static final String MEMORY_SOURCE = "tailwatch.memory.source";
    /** Averaging window of the load average: 1, 5 or 15 minutes. */
    public static final String LOAD_WINDOW = "tailwatch.load.window";
    /** Apple silicon core cluster, from hw.perflevelN.name. */
    public static final String CPU_CLUSTER = "tailwatch.cpu.cluster";

    public static final String HW_ID = "hw.id";
    public static final String HW_TYPE = "hw.type";
    public static final String HW_NAME = "hw.name";
    /** semconv: which limit a *.limit series is (max, ...). */
    public static final String HW_LIMIT_TYPE = "hw.limit_type";
    /** What part of the GPU's memory a hw.gpu.memory.usage series counts: in_use, allocated. */
    public static final String GPU_MEMORY_STATE = "tailwatch.gpu.memory.state";

    /** The Prometheus label name of an attribute key. */
    public static String label(String key) {
        return MetricDef.labelName(key);
    }
}
