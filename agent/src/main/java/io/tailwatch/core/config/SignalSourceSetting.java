package io.tailwatch.core.config;

import java.util.Arrays;
import java.util.List;

/**
 * The values of an engine's {@code signals.source}: the one list of engine-signal sources a config may
 * name. The config check, the shipped config's comments and the status page read it; the daemon's
 * signal detector maps each value to its sources in a switch without a default, so a value added here
 * does not compile until the detector knows how to read it.
 */
public enum SignalSourceSetting {
    AUTO("auto", "detect from the engine's answers: /metrics, then /slots, then the queue field of /healthz or "
            + "/health, else the header-time estimate"),
    NONE("none", "read no engine signals"),
    LLAMACPP("llamacpp", "llama.cpp's /metrics (started with --metrics) and /slots"),
    VLLM("vllm", "the Prometheus /metrics of vLLM or vllm-mlx"),
    MLX_VLM("mlx_vlm", "mlx-vlm's JSON /metrics"),
    HEALTH_QUEUE("health_queue", "the health_queue_field of the /healthz or /health JSON"),
    HEADER_ESTIMATE("header_estimate", "queue wait estimated from the probes' time to response headers");

    private final String configName;
    private final String description;

    SignalSourceSetting(String configName, String description) {
        this.configName = configName;
        this.description = description;
    }

    /** The value as written in the config (and shown on the status page). */
    public String configName() {
        return configName;
    }

    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return configName;
    }

    /** Every config name, in declaration order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(SignalSourceSetting::configName).toList();
    }

    /** The value written as {@code name}, or null when there is none. */
    public static SignalSourceSetting of(String name) {
        for (SignalSourceSetting s : values()) {
            if (s.configName.equals(name)) {
                return s;
            }
        }
        return null;
    }
}
