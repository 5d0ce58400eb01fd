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
 * @param connectionRest how long a connection to the engine rests after an answer before it carries the next
 *                       request: llama.cpp's server closes its connection after every streamed answer without
 *                       saying so, and a request sent on it at once meets the close (a 502); engines that keep
 *                       their connections (Ollama, mlx_lm.server, vLLM) can take 0
 * @param laneWindow     the span of each lane's window: its percentiles, goodput and mean in flight (5m unless set)
 */
public record ProxyConfig(String host, int port, int maxConnections, Duration idleTimeout, Duration timeout,
                          java.util.List<Lane> lanes, Duration connectionRest, Duration laneWindow) {
    /** Lanes an engine's proxy may name. */
    public static final int MAX_LANES = 16;
    public static final java.util.regex.Pattern LANE_NAME = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9_.-]{0,31}");
    public static final String DEFAULT_LANE = "default";

    public ProxyConfig(String host, int port, int maxConnections, Duration idleTimeout, Duration timeout) {
        this(host, port, maxConnections, idleTimeout, timeout, java.util.List.of());
    }

    public ProxyConfig(String host, int port, int maxConnections, Duration idleTimeout, Duration timeout,
                       java.util.List<Lane> lanes) {
        this(host, port, maxConnections, idleTimeout, timeout, lanes, DEFAULT_CONNECTION_REST);
    }

    public ProxyConfig(String host, int port, int maxConnections, Duration idleTimeout, Duration timeout,
                       java.util.List<Lane> lanes, Duration connectionRest) {
        this(host, port, maxConnections, idleTimeout, timeout, lanes, connectionRest, DEFAULT_LANE_WINDOW);
    }

    public ProxyConfig {
        lanes = lanes == null ? java.util.List.of() : java.util.List.copyOf(lanes);
        connectionRest = connectionRest == null ? DEFAULT_CONNECTION_REST : connectionRest;
        laneWindow = laneWindow == null ? DEFAULT_LANE_WINDOW : laneWindow;
    }

    /** Same listener and bounds (lanes may differ: they are swapped without a restart). */
    public boolean sameListener(ProxyConfig o) {
        return o != null && host.equals(o.host) && port == o.port && maxConnections == o.maxConnections
                && idleTimeout.equals(o.idleTimeout) && timeout.equals(o.timeout)
                && connectionRest.equals(o.connectionRest);
    }

    /**
     * A lane: the requests it takes (any of: a header with a value, an API key given by its SHA-256, a path
     * prefix, the model the engine answered with; none for {@code default}, which takes the rest) and its SLO.
     *
     * @param apiKeySha256 lower-case hex SHA-256 of the key sent as {@code Authorization: Bearer KEY} or {@code x-api-key}
     */
    public record Lane(String name, String header, String headerValue, String apiKeySha256, String pathPrefix,
                       String model, Slo slo) {
        @Override
        public String toString() {
            return "Lane[" + name + (apiKeySha256 == null ? "" : ", api key by hash") + "]";
        }
    }

    /**
     * A lane's SLO: a request meets it when it ended well within both limits (each optional); {@code target}
     * is the share of requests that should meet it.
     */
    public record Slo(Duration ttft, Duration e2e, double target) {
    }

    static java.util.List<Lane> readLanes(Section s) {
        java.util.List<Section> list = s.sections("lanes");
        if (list == null) {
            return java.util.List.of();
        }
        if (list.size() > MAX_LANES) {
            s.problem("lanes", list.size() + " lanes, more than the " + MAX_LANES + " a proxy may have");
        }
        java.util.List<Lane> out = new java.util.ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Section l : list) {
            String name = l.string("name", null);
            if (name == null || !LANE_NAME.matcher(name).matches()) {
                l.problem(name == null ? null : "name", "a lane needs a name matching " + LANE_NAME.pattern());
            } else if (!names.add(name)) {
                l.problem("name", "duplicate lane name '" + name + "'");
            }
            String header = null;
            String value = null;
            if (l.has("header")) {
                Section h = l.section("header");
                header = h.string("name", null);
                value = h.string("value", null);
                if (header == null || !header.matches("[A-Za-z0-9-]{1,64}") || value == null) {
                    h.problem(null, "a header match needs name: (an HTTP header name) and value:");
                } else if (value.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
                    h.problem("value", "a header value cannot hold a line break or control character: no request carries it");
                } else if (header.equalsIgnoreCase("Authorization") || header.equalsIgnoreCase("x-api-key")
                        || header.equalsIgnoreCase("Proxy-Authorization")) {
                    h.problem("name", header + " would hold a key in clear in the config: match it with api_key_sha256");
                }
                h.finish();
            }
            String hash = l.string("api_key_sha256", null);
            boolean hashGiven = hash != null;
            if (hash != null) {
                hash = hash.toLowerCase(java.util.Locale.ROOT);
                if (!hash.matches("[0-9a-f]{64}")) {
                    l.problem("api_key_sha256", "must be the 64 hex digits of the key's SHA-256 "
                            + "(printf %s \"$KEY\" | shasum -a 256); the key itself is never written here");
                    hash = null;
                }
            }
            String path = l.string("path_prefix", null);
            if (path != null && !path.startsWith("/")) {
                l.problem("path_prefix", "must start with /");
            }
            String model = l.string("model", null);
            boolean matches = header != null || hashGiven || path != null || model != null;
            if (DEFAULT_LANE.equals(name) && matches) {
                l.problem("name", "the default lane takes every request no other lane takes: it has no match keys");
            } else if (name != null && !DEFAULT_LANE.equals(name) && !matches) {
                l.problem(null, "lane '" + name + "' matches nothing: give header, api_key_sha256, path_prefix or model");
            }
            Slo slo = null;
            if (l.has("slo")) {
                Section o = l.section("slo");
                Duration ttft = o.has("ttft_p95") ? o.duration("ttft_p95", null, Duration.ofMillis(1), Duration.ofHours(1)) : null;
                Duration e2e = o.has("e2e_p95") ? o.duration("e2e_p95", null, Duration.ofMillis(1), Duration.ofHours(24)) : null;
                double target = o.number("target", 0.95, 0.0, 1.0);
                if (ttft == null && e2e == null) {
                    o.problem(null, "an SLO needs ttft_p95 or e2e_p95");
                }
                o.finish();
                slo = new Slo(ttft, e2e, target);
            }
            l.finish();
            if (name != null) {
                out.add(new Lane(name, header, value, hash, path, model, slo));
            }
        }
        return java.util.List.copyOf(out);
    }

    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final int MAX_CONNECTIONS = 512;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
    /** Long enough for llama.cpp's server's unannounced close to arrive (docs/proxy.md). */
    public static final Duration DEFAULT_CONNECTION_REST = Duration.ofMillis(200);
    /** The span of each lane's window (its percentiles, goodput and mean in flight; the lane rules read them). */
    public static final Duration DEFAULT_LANE_WINDOW = Duration.ofMinutes(5);

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
        Duration rest = s.duration("connection_rest", DEFAULT_CONNECTION_REST, Duration.ZERO, Duration.ofSeconds(5));
        Duration window = s.duration("lane_window", DEFAULT_LANE_WINDOW, Duration.ofSeconds(1), Duration.ofHours(1));
        java.util.List<Lane> lanes = readLanes(s);
        s.finish();
        return hp == null ? null : new ProxyConfig(hp.host(), hp.port(), max, idle, timeout, lanes, rest, window);
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
