package io.tailwatch.metrics;

import java.util.Locale;

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

    static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    // ---- host ------------------------------------------------------------------------------

    /** {@code system.memory.state} (semconv). */
    public enum MemoryState implements AttrValue {
        USED, FREE, CACHED, BUFFERS;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.MEMORY_STATE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.memory.page.state}: macOS VM page states. */
    public enum MemoryPageState implements AttrValue {
        ACTIVE, INACTIVE, WIRED, COMPRESSED;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.MEMORY_PAGE_STATE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code system.paging.state} (semconv): swap space used and free. */
    public enum PagingState implements AttrValue {
        USED, FREE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.PAGING_STATE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code system.paging.direction} (semconv): pages swapped in or out. */
    public enum PagingDirection implements AttrValue {
        IN, OUT;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.PAGING_DIRECTION;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.psi.kind}: Linux PSI {@code some} and {@code full} lines. */
    public enum PsiKind implements AttrValue {
        SOME, FULL;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.PSI_KIND;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.psi.window}: Linux PSI averaging windows. */
    public enum PsiWindow implements AttrValue {
        AVG10, AVG60, AVG300;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.PSI_WINDOW;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code hw.type} (semconv enum): the classes of component this agent reports. */
    public enum HwType implements AttrValue {
        CPU, GPU, MEMORY, ENCLOSURE, TEMPERATURE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.HW_TYPE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.cpu.throttle.scope}: Linux x86 thermal throttle counters. */
    public enum ThrottleScope implements AttrValue {
        CORE, PACKAGE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.THROTTLE_SCOPE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code cpu.mode} (semconv): the modes this agent reports. */
    public enum CpuMode implements AttrValue {
        USER, SYSTEM, NICE, IDLE, IOWAIT, INTERRUPT, STEAL;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.CPU_MODE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    // ---- engines ---------------------------------------------------------------------------

    /** {@code tailwatch.engine.api}: the wire API an engine speaks. */
    public enum EngineApi implements AttrValue {
        OLLAMA, OPENAI;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.ENGINE_API;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.model.memory.kind}: whole model, or the part in GPU memory. */
    public enum ModelMemoryKind implements AttrValue {
        TOTAL, VRAM;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.MODEL_MEMORY_KIND;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.engine.request.state}: requests running or waiting in the engine's queue. */
    public enum RequestState implements AttrValue {
        RUNNING, WAITING;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.REQUEST_STATE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.queue.wait.source}: the engine's own figure, or estimated from probe header time. */
    public enum QueueWaitSource implements AttrValue {
        MEASURED, ESTIMATE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.QUEUE_WAIT_SOURCE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.engine.signal.source}: where an engine's own figures are read. */
    public enum SignalSource implements AttrValue {
        LLAMACPP_SLOTS, PROMETHEUS, MLX_VLM_JSON, HEALTH_QUEUE, HEADER_ESTIMATE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.SIGNAL_SOURCE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    // ---- probes ----------------------------------------------------------------------------

    /** {@code gen_ai.operation.name} (semconv): the operations a probe performs. */
    public enum Operation implements AttrValue {
        CHAT, TEXT_COMPLETION;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.OPERATION;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code gen_ai.token.type} (semconv). */
    public enum TokenType implements AttrValue {
        INPUT, OUTPUT;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.TOKEN_TYPE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.token.source}: where a probe's token counts come from. */
    public enum TokenSource implements AttrValue {
        USAGE, ENGINE, ESTIMATE;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.TOKEN_SOURCE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.probe.skip.reason}: why a probe was not sent. */
    public enum SkipReason implements AttrValue {
        MEMORY_PRESSURE_CRITICAL, IN_FLIGHT, NO_MODEL, ENGINE_DOWN;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.SKIP_REASON;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.percentile}: the percentiles of a rolling probe window. */
    public enum Percentile implements AttrValue {
        P50, P95, P99;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.PERCENTILE;
        }

        @Override
        public String value() {
            return value;
        }
    }

    // ---- alerts and the agent itself -------------------------------------------------------

    /** {@code tailwatch.alert.severity}: a rule's severity, worst last. */
    public enum AlertSeverity implements AttrValue {
        INFO, WARNING, CRITICAL;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.ALERT_SEVERITY;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.webhook.outcome}: what became of a webhook notification. */
    public enum WebhookOutcome implements AttrValue {
        SENT, FAILED, DROPPED, SUPPRESSED;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.WEBHOOK_OUTCOME;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** {@code tailwatch.http.auth.failure.reason}: why basic authentication refused a request. */
    public enum AuthFailureReason implements AttrValue {
        MISSING, MALFORMED, UNKNOWN_USER, WRONG_PASSWORD;

        private final String value = lower(this);

        @Override
        public String key() {
            return AttrKeys.AUTH_FAILURE_REASON;
        }

        @Override
        public String value() {
            return value;
        }
    }
}
