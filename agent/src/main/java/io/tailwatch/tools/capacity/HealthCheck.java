package io.tailwatch.tools.capacity;

/** The engine's health, asked between ladder steps. */
@FunctionalInterface
public interface HealthCheck {
    HealthCheck NONE = () -> null;

    /** Null when healthy, else what is wrong (within the check's own deadline; never throws). */
    String problem();
}
