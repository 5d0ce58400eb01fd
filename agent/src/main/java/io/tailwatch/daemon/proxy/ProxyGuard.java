package io.tailwatch.daemon.proxy;

import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.daemon.api.BasicAuthGuard;
import io.tailwatch.metrics.AttrValues.AuthFailureReason;
import org.eclipse.jetty.server.Request;

/**
 * Basic auth of a proxy that listens beyond loopback, with the users of the agent's web config (the same
 * check as the agent's own listener: bcrypt, constant time, cached). The credentials are the proxy's: they
 * are not passed on to the engine.
 */
final class ProxyGuard {
    private final LiveWebConfig web;
    private final BasicAuthGuard check;

    ProxyGuard(LiveWebConfig web) {
        this.web = web;
        this.check = new BasicAuthGuard(web, false);
    }

    /**
     * Null when the request may pass; else the failure reason's name. Throws {@link BasicAuthGuard.Busy} when the
     * check needs a bcrypt and every permit is taken (a guessing flood): the caller answers 429.
     */
    String refuse(Request request) {
        if (!web.current().basicAuth()) {
            return null;
        }
        AuthFailureReason r = check.check(web.current().users(), request.getHeaders().get("Authorization"));
        return r == null ? null : r.value();
    }
}
