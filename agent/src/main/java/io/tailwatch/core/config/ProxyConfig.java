package io.tailwatch.core.config;

import io.tailwatch.core.units.Units;
import java.time.Duration;

/**
 * An engine's metering proxy ({@code proxy:} under an engine): clients send their requests to
 * {@code listen} instead of the engine's URL, and every request is forwarded untouched and measured as
 * it passes. Off unless the engine has the section. A listener that is not loopback is served with the
 * agent's web config (TLS and basic auth, both required).
 *
 * @param maxConnections client connections held at once (more wait in the accept queue); the same bound
 *                       applies to the connections to the engine
 * @param idleTimeout    how long a connection on either side may stay silent (a long prefill sends nothing)
 * @param timeout        the longest one request may take, headers to the last byte
 */
public record ProxyConfig(String host, int port, int maxConnections, Duration idleTimeout, Duration timeout) {
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final int MAX_CONNECTIONS = 512;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);

    public String listen() {
        return HostPort.format(host, port);
    }

    /** True when {@code host} is written as a loopback address (127.0.0.0/8, ::1, localhost); no name lookup. */
    public static boolean loopback(String host) {
        String h = host.toLowerCase(java.util.Locale.ROOT);
        return h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1") || h.matches("127(\\.\\d{1,3}){3}");
    }

    public boolean exposed() {
        return !loopback(host);
    }

    /**
     * Reads the section; {@code exposedProblem} is null when a non-loopback listener may be served (the
     * agent's web config has TLS and basic auth), else the reason it may not.
     */
    static ProxyConfig read(Section s, String exposedProblem) {
        String listen = s.string("listen", null);
        HostPort hp = null;
        if (listen == null) {
            s.problem(s.has("listen") ? "listen" : null, "a proxy needs listen: HOST:PORT (e.g. 127.0.0.1:11435)");
        } else {
            try {
                hp = HostPort.parse(listen);
            } catch (IllegalArgumentException e) {
                s.problem("listen", e.getMessage());
            }
        }
        if (hp != null && !loopback(hp.host()) && exposedProblem != null) {
            s.problem("listen", "'" + listen + "' is not a loopback address: a proxy reachable from other hosts is "
                    + "served with the agent's web config, which needs TLS and basic auth (" + exposedProblem
                    + "); listen on 127.0.0.1 otherwise");
        }
        int max = s.integer("max_connections", DEFAULT_MAX_CONNECTIONS, 1, MAX_CONNECTIONS);
        Duration idle = s.duration("idle_timeout", DEFAULT_IDLE_TIMEOUT, Duration.ofSeconds(1), Duration.ofHours(1));
        Duration timeout = s.duration("timeout", DEFAULT_TIMEOUT, Duration.ofSeconds(1), Duration.ofHours(24));
        if (idle.compareTo(timeout) > 0) {
            s.problem("idle_timeout", "must not be longer than timeout (" + Units.format(timeout) + ")");
        }
        s.finish();
        return hp == null ? null : new ProxyConfig(hp.host(), hp.port(), max, idle, timeout);
    }

    /** Why a non-loopback proxy cannot be served with this web config, or null when it can. */
    static String exposedProblem(ServerConfig server) {
        if (server.webConfigFile() == null) {
            return "server.web_config_file is not set";
        }
        try {
            WebConfig web = WebConfig.load(server.webConfigFile());
            if (web.tls() == null) {
                return server.webConfigFile() + " has no tls_server_config";
            }
            if (!web.basicAuth()) {
                return server.webConfigFile() + " has no basic_auth_users";
            }
            return null;
        } catch (ConfigException e) {
            return server.webConfigFile() + " cannot be read";
        }
    }
}
