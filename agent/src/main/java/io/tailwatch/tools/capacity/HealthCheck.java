package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineHealth;
import java.time.Duration;

/** The engine's health, asked between ladder steps. */
@FunctionalInterface
public interface HealthCheck {
    HealthCheck NONE = () -> null;

    /** Null when healthy, else what is wrong (within the check's own deadline; never throws). */
    String problem();

    /**
     * The engine's own health check within {@code deadline}: its error (or "engine down") when it is not up,
     * "engine is loading a model" while it loads, null when it serves.
     */
    static HealthCheck of(EngineClient client, Duration deadline) {
        return () -> {
            EngineHealth h = client.health(deadline);
            if (!h.up()) {
                return h.error() == null ? "engine down" : h.error();
            }
            return h.loading() ? "engine is loading a model" : null;
        };
    }
}
