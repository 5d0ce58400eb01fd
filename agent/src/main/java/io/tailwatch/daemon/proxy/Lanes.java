package io.tailwatch.daemon.proxy;

import jakarta.servlet.http.HttpServletRequest;

/** Names the lane of a request from what it carries; {@code default} for the rest. */
final class Lanes {
    static final String DEFAULT = "default";
    static final Lanes NONE = new Lanes();

    String laneOf(HttpServletRequest request) {
        return DEFAULT;
    }
}
