package io.tailwatch.daemon.api;

import io.tailwatch.core.config.HostPort;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.config.WebConfig;
import io.tailwatch.daemon.status.StatusContributor;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the listener is protected, for the start log and the "listener" part of /api/v1/status (which
 * `tailwatch status` prints): TLS and basic auth from the web config, the API bearer token, and a
 * warning when the address is reachable from other hosts without TLS or without authentication.
 */
public final class ListenerSecurity implements StatusContributor {
    private final String host;
    private final int port;
    private final LiveWebConfig web;
    private final boolean token;

    public ListenerSecurity(String host, int port, LiveWebConfig web, boolean token) {
        this.host = host;
        this.port = port;
        this.web = web;
        this.token = token;
    }

    /** Whether every address the listener binds is loopback (127.0.0.0/8, ::1, localhost). */
    public static boolean loopback(String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    public boolean tls() {
        return web != null && web.current().tls() != null;
    }

    public boolean basicAuth() {
        return web != null && web.current().basicAuth();
    }

    /** Null on loopback, or with both TLS and basic auth; else what is missing and how to fix it. */
    public String warning() {
        return warning(host, port, tls(), basicAuth(), token);
    }

    /** The same warning from a config alone (for `config check`, before anything listens). */
    public static String warning(io.tailwatch.core.config.ServerConfig server) {
        WebConfig web = null;
        if (server.webConfigFile() != null) {
            try {
                web = WebConfig.load(server.webConfigFile());
            } catch (io.tailwatch.core.config.ConfigException e) {
                web = null; // reported as a config problem already
            }
        }
        return warning(server.host(), server.port(), web != null && web.tls() != null, web != null && web.basicAuth(),
                server.authToken() != null);
    }

    static String warning(String host, int port, boolean tls, boolean basicAuth, boolean token) {
        if (loopback(host)) {
            return null;
        }
        List<String> missing = new ArrayList<>();
        if (!tls) {
            missing.add("without TLS (metrics and credentials cross the network in clear text)");
        }
        if (!basicAuth) {
            missing.add("without authentication (" + (token ? "/metrics and / are open to anyone who can reach the port; "
                    + "the bearer token guards /api/* only" : "anyone who can reach the port reads /metrics and /api/*") + ")");
        }
        if (missing.isEmpty()) {
            return null;
        }
        return "the listener at " + HostPort.format(host, port) + " is reachable from other hosts " + String.join(" and ", missing)
                + ": set server.web_config_file (tls_server_config and basic_auth_users, see docs/fleet.md) or listen on 127.0.0.1";
    }

    @Override
    public String name() {
        return "listener";
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("listen", HostPort.format(host, port));
        m.put("loopback", loopback(host));
        m.put("tls", tls());
        m.put("basic_auth", basicAuth());
        m.put("api_token", token);
        m.put("web_config_file", web == null ? null : web.file().toString());
        m.put("warning", warning());
        return m;
    }
}
