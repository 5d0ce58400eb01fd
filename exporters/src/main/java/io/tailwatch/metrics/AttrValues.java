package io.tailwatch.metrics;

import java.util.Locale;
import java.util.Map;

/**
 * The allowed values of every enumerated attribute of the catalog, one enum per attribute key. The
 * exported value is the constant's name in lower case. The metric declarations take their allowed
 * values from here ({@link AttributeDef#oneOf(String, String, AttrValue...)}), and the samplers,
 * snapshot readers and rules use the same constants.
 */
public final class AttrValues {
    private AttrValues() {
    }

    /** The value of {@code type} whose exported string is {@code value}, or null when there is none. */
    public static <E extends Enum<E> & AttrValue> E find(Class<E> type, String value) {
        return findIn(type, value);
    }

    static <E extends AttrValue> E findIn(Class<E> type, String value) {
        for (E e : type.getEnumConstants()) {
            if (e.value().equals(value)) {
                return e;
            }
        }
        return null;
    }

    /** The attribute key of each enum: one line per enumerated attribute. */
    private static final Map<Class<?>, String> KEYS = Map.ofEntries(
            Map.entry(MemoryState.class, AttrKeys.MEMORY_STATE),
            Map.entry(MemoryPageState.class, AttrKeys.MEMORY_PAGE_STATE),
            Map.entry(PagingState.class, AttrKeys.PAGING_STATE),
            Map.entry(PagingDirection.class, AttrKeys.PAGING_DIRECTION),
            Map.entry(PsiKind.class, AttrKeys.PSI_KIND),
            Map.entry(PsiWindow.class, AttrKeys.PSI_WINDOW),
            Map.entry(HwType.class, AttrKeys.HW_TYPE),
            Map.entry(ThrottleScope.class, AttrKeys.THROTTLE_SCOPE),
            Map.entry(CpuMode.class, AttrKeys.CPU_MODE),
            Map.entry(EngineApi.class, AttrKeys.ENGINE_API),
            Map.entry(ModelMemoryKind.class, AttrKeys.MODEL_MEMORY_KIND),
            Map.entry(RequestState.class, AttrKeys.REQUEST_STATE),
            Map.entry(QueueWaitSource.class, AttrKeys.QUEUE_WAIT_SOURCE),
            Map.entry(RequestsSource.class, AttrKeys.REQUESTS_SOURCE),
            Map.entry(SignalSource.class, AttrKeys.SIGNAL_SOURCE),
            Map.entry(Operation.class, AttrKeys.OPERATION),
            Map.entry(TokenType.class, AttrKeys.TOKEN_TYPE),
            Map.entry(TokenSource.class, AttrKeys.TOKEN_SOURCE),
            Map.entry(TokenModality.class, AttrKeys.TOKEN_MODALITY),
            Map.entry(SkipReason.class, AttrKeys.SKIP_REASON),
            Map.entry(Percentile.class, AttrKeys.PERCENTILE),
            Map.entry(AlertSeverity.class, AttrKeys.ALERT_SEVERITY),
            Map.entry(WebhookOutcome.class, AttrKeys.WEBHOOK_OUTCOME),
            Map.entry(AuthFailureReason.class, AttrKeys.AUTH_FAILURE_REASON),
            Map.entry(ProxyOutcome.class, AttrKeys.PROXY_OUTCOME),
            Map.entry(GpuMemoryState.class, AttrKeys.GPU_MEMORY_STATE),
            Map.entry(SamplerState.class, AttrKeys.SAMPLER_STATUS),
            Map.entry(RailStatus.class, AttrKeys.RAIL_STATUS),
            Map.entry(LimitType.class, AttrKeys.HW_LIMIT_TYPE),
            Map.entry(MemorySource.class, AttrKeys.MEMORY_SOURCE),
            Map.entry(LoadWindow.class, AttrKeys.LOAD_WINDOW),
            Map.entry(PowerSource.class, AttrKeys.POWER_SOURCE),
            Map.entry(RailSource.class, AttrKeys.RAIL_SOURCE),
            Map.entry(PowerExactness.class, AttrKeys.POWER_EXACTNESS),
            Map.entry(ReadyReason.class, AttrKeys.READY_REASON));


    /** The attribute key the values of {@code type} belong to. */
    static String key(Class<?> type) {
        String key = KEYS.get(type);
        if (key == null) {
            throw new IllegalStateException(type.getName() + " has no attribute key in AttrValues.KEYS");
        }
        return key;
    }

    /** Each enum's exported values (the lower-case names), by ordinal: computed once per enum. */
    private static final ClassValue<String[]> LOWER = new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
            Object[] constants = type.getEnumConstants();
            String[] out = new String[constants.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = ((Enum<?>) constants[i]).name().toLowerCase(Locale.ROOT);
            }
            return out;
        }
    };

    /** The exported value of an enum constant: its name in lower case. */
    static String lower(Enum<?> e) {
        return LOWER.get(e.getDeclaringClass())[e.ordinal()];
    }

    // ---- host ------------------------------------------------------------------------------

    /** {@code system.memory.state} (semconv). */
    public enum MemoryState implements AttrValue { USED, FREE, CACHED, BUFFERS }

    /** {@code tailwatch.memory.page.state}: macOS VM page states. */
    public enum MemoryPageState implements AttrValue { ACTIVE, INACTIVE, WIRED, COMPRESSED }

    /** {@code system.paging.state} (semconv): swap space used and free. */
    public enum PagingState implements AttrValue { USED, FREE }

    /** {@code system.paging.direction} (semconv): pages swapped in or out. */
    public enum PagingDirection implements AttrValue { IN, OUT }

    /** {@code tailwatch.psi.kind}: Linux PSI {@code some} and {@code full} lines. */
    public enum PsiKind implements AttrValue { SOME, FULL }

    /** {@code tailwatch.psi.window}: Linux PSI averaging windows. */
    public enum PsiWindow implements AttrValue { AVG10, AVG60, AVG300 }

    /** {@code hw.type} (semconv enum): the classes of component this agent reports. */
    public enum HwType implements AttrValue { CPU, GPU, MEMORY, ENCLOSURE, TEMPERATURE, FAN, BATTERY, POWER_SUPPLY }

    /** {@code tailwatch.cpu.throttle.scope}: Linux x86 thermal throttle counters. */
    public enum ThrottleScope implements AttrValue { CORE, PACKAGE }

    /** {@code tailwatch.memory.source}: an engine's memory as PSS (smaps_rollup) or, where unreadable, RSS. */
    public enum MemorySource implements AttrValue { PSS, RSS }

    /** {@code tailwatch.load.window}: the load average's 1-, 5- and 15-minute windows. */
    public enum LoadWindow implements AttrValue { AVG1, AVG5, AVG15 }

    /** {@code cpu.mode} (semconv): the modes this agent reports. */
    public enum CpuMode implements AttrValue { USER, SYSTEM, NICE, IDLE, IOWAIT, INTERRUPT, STEAL }

    // ---- engines ---------------------------------------------------------------------------

    /** {@code tailwatch.engine.api}: the wire API an engine speaks. */
    public enum EngineApi implements AttrValue { OLLAMA, OPENAI }

    /** {@code tailwatch.model.memory.kind}: whole model, or the part in GPU memory. */
    public enum ModelMemoryKind implements AttrValue { TOTAL, VRAM }

    /** {@code tailwatch.engine.request.state}: requests running or waiting in the engine's queue. */
    public enum RequestState implements AttrValue { RUNNING, WAITING }

    /** {@code tailwatch.queue.wait.source}: the engine's own figure, or estimated from probe header time. */
    public enum QueueWaitSource implements AttrValue { MEASURED, ESTIMATE }

    /** {@code tailwatch.engine.signal.source}: where an engine's own figures are read. */
    public enum SignalSource implements AttrValue {
        LLAMACPP_SLOTS, PROMETHEUS, MLX_VLM_JSON, HEALTH_QUEUE, HEADER_ESTIMATE, VLLM_MLX_STATUS, LMSTUDIO_MODELS
    }

    /**
     * {@code tailwatch.engine.requests.source}: what running/waiting counts are measured from: the engine's own
     * count, or the proxy's requests in flight against the engine's batch size (requests past it wait).
     */
    public enum RequestsSource implements AttrValue { ENGINE, PROXY }

    /**
     * {@code tailwatch.engine.ready.reason}: why an engine cannot take one more request within its SLO
     * (docs/routing.md); {@code none} on the ready series of an engine that can.
     */
    public enum ReadyReason implements AttrValue {
        QUEUE_FULL, QUEUE_WAIT_OVER_SLO, TTFT_OVER_SLO, MEMORY_PRESSURE, SWAP_GROWING, GPU_MEMORY_NEAR_LIMIT,
        THERMAL_LIMITED, LOADING, DOWN, UNKNOWN, NONE
    }

    // ---- probes ----------------------------------------------------------------------------

    /** {@code gen_ai.operation.name} (semconv): the operations a probe performs. */
    public enum Operation implements AttrValue { CHAT, TEXT_COMPLETION }

    /** {@code gen_ai.token.type} (semconv). */
    public enum TokenType implements AttrValue { INPUT, OUTPUT }

    /** {@code gen_ai.token.modality}: the modality of counted tokens (the probes' prompts and answers are text). */
    public enum TokenModality implements AttrValue { TEXT }

    /** {@code tailwatch.token.source}: where a probe's token counts come from. */
    public enum TokenSource implements AttrValue { USAGE, ENGINE, ESTIMATE }

    /** {@code tailwatch.probe.skip.reason}: why a probe was not sent. */
    public enum SkipReason implements AttrValue { MEMORY_PRESSURE_CRITICAL, IN_FLIGHT, NO_MODEL, ENGINE_DOWN, KEY_REFUSED }

    /** {@code tailwatch.percentile}: the percentiles of a rolling probe window. */
    public enum Percentile implements AttrValue { P50, P95, P99 }

    // ---- alerts and the agent itself -------------------------------------------------------

    /** {@code tailwatch.alert.severity}: a rule's severity, worst last. */
    public enum AlertSeverity implements AttrValue { INFO, WARNING, CRITICAL }

    /** {@code tailwatch.webhook.outcome}: what became of a webhook notification. */
    public enum WebhookOutcome implements AttrValue { SENT, FAILED, DROPPED, SUPPRESSED }

    /** {@code tailwatch.http.auth.failure.reason}: why basic authentication refused a request. */
    public enum AuthFailureReason implements AttrValue { MISSING, MALFORMED, UNKNOWN_USER, WRONG_PASSWORD }

    // ---- the engines' proxies --------------------------------------------------------------

    /**
     * {@code tailwatch.proxy.outcome}: how a request through an engine's proxy ended: ok (the engine
     * answered 2xx and the body reached the client), http_error (the engine answered 4xx/5xx, passed on),
     * stream_error (an error inside a 200 stream), cut (a 200 stream that ended without its end marker, SSE
     * {@code data: [DONE]} or NDJSON {@code done: true}: the engine stopped mid-answer), upstream_unreachable (no connection to the engine: 502),
     * upstream_timeout (the engine went silent past the idle timeout, or the request past its timeout),
     * upstream_failed (the engine's connection broke mid-answer), client_disconnect (the client left first;
     * the engine's request is closed at once), rejected (the proxy refused the request: too large, bad auth).
     */
    public enum ProxyOutcome implements AttrValue {
        OK, HTTP_ERROR, STREAM_ERROR, CUT, UPSTREAM_UNREACHABLE, UPSTREAM_TIMEOUT, UPSTREAM_FAILED, CLIENT_DISCONNECT, REJECTED
    }

    /**
     * macOS IOAccelerator PerformanceStatistics: in_use ("In use system memory", what GPU work holds
     * now), allocated ("Alloc system memory", what the GPU driver has allocated, in use or not).
     */
    public enum GpuMemoryState implements AttrValue { IN_USE, ALLOCATED }

    /**
     * {@code tailwatch.sampler.status}: running, or kept out of the daemon because its native probe
     * crashed (or hung, timed_out) the self-check's child process on this OS build, or read values that do
     * not fit the documented layout there (rejected).
     */
    public enum SamplerState implements AttrValue { RUNNING, CRASHED, TIMED_OUT, REJECTED }

    /**
     * {@code tailwatch.power.rail.status}: the rail's energy counter moves (measured), or macOS stopped it
     * (frozen: no energy over at least 40 ms on a rail that cannot be idle), so its power is absent.
     */
    public enum RailStatus implements AttrValue { MEASURED, FROZEN }

    /** {@code hw.limit_type} (semconv): the limits this agent reports. */
    public enum LimitType implements AttrValue { MAX }

    /**
     * {@code tailwatch.power.source}: the host power an energy figure rests on. rails: the sum of the
     * measured rails (Apple silicon IOReport cpu + gpu + ane + dram; Linux RAPL package + dram); system:
     * one whole-host figure, used where the rails are frozen or absent.
     */
    public enum PowerSource implements AttrValue { RAILS, SYSTEM }

    /**
     * {@code tailwatch.power.rail.source}: the counters an Apple silicon rail's figure comes from: the IOReport
     * "Energy Model" group, or the AppleCLPC driver's energy accumulators (IOReport group "CLPC"), used for a
     * rail the Energy Model has frozen.
     */
    public enum RailSource implements AttrValue { ENERGY_MODEL, CLPC }

    /**
     * {@code tailwatch.power.exactness}: exact when the counter measures the rail itself; estimated when it
     * is the driver's split of a larger total (CLPC on chips other than M5 Pro and M5 Max).
     */
    public enum PowerExactness implements AttrValue { EXACT, ESTIMATED }
}
