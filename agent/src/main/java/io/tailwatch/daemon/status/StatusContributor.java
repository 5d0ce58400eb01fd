package io.tailwatch.daemon.status;

/** A part of GET /api/v1/status (host, engines, alerts, ...). The value is serialised as JSON. */
public interface StatusContributor {
    String name();

    Object status();
}
