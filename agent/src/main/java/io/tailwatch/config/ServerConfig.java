package io.tailwatch.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** HTTP listener and API protection. The token is never logged nor exported. */
public record ServerConfig(String host, int port, String authToken, java.util.List<String> allowedHosts) {
    public static final String DEFAULT_LISTEN = "127.0.0.1:9531";

    static ServerConfig read(Section s) {
        String listen = s.string("listen", DEFAULT_LISTEN);
        HostPort hp;
        try {
            hp = HostPort.parse(listen);
        } catch (IllegalArgumentException e) {
            s.problem("listen", e.getMessage());
            hp = HostPort.parse(DEFAULT_LISTEN);
        }
        String token = s.string("auth_token", null);
        if ((token != null && token.isBlank()) || (token == null && s.isNull("auth_token"))) {
            // An empty ${VAR} must not turn authentication off without a word.
            s.problem("auth_token", "the token is empty (an unset or empty environment variable?); "
                    + "remove the key to run without a token");
            token = null;
        }
        boolean fileGiven = s.has("auth_token_file");
        Path tokenFile = s.path("auth_token_file", null);
        if (token != null && fileGiven) {
            s.problem("auth_token_file", "set auth_token or auth_token_file, not both");
        } else if (tokenFile != null) {
            try {
                token = Files.readString(tokenFile).strip();
                if (token.isEmpty()) {
                    s.problem("auth_token_file", "the token file is empty");
                    token = null;
                }
            } catch (IOException e) {
                s.problem("auth_token_file", "cannot read the token file: " + e.getClass().getSimpleName());
            }
        }
        java.util.List<String> allowed = new java.util.ArrayList<>();
        for (String h : s.strings("allowed_hosts", java.util.List.of())) {
            String name = h.strip().toLowerCase(java.util.Locale.ROOT);
            if (!name.matches("[a-z0-9]([a-z0-9.-]*[a-z0-9])?")) {
                s.problem("allowed_hosts", "'" + h + "' is not a host name (no port, no scheme, no wildcard)");
            } else {
                allowed.add(name);
            }
        }
        s.finish();
        return new ServerConfig(hp.host(), hp.port(), token, java.util.List.copyOf(allowed));
    }

    public ServerConfig(String host, int port, String authToken) {
        this(host, port, authToken, java.util.List.of());
    }

    /** True when the listen address is a loopback one (127.0.0.0/8, ::1, localhost). */
    public boolean loopback() {
        return isLoopback(host);
    }

    public static boolean isLoopback(String host) {
        String h = host.toLowerCase(java.util.Locale.ROOT);
        return h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
                || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    /** The warning printed at start, by `config check` and by `status` when the API is reachable beyond this host; null on loopback. */
    public String exposureWarning() {
        if (loopback()) {
            return null;
        }
        return "server.listen " + listen() + " is not loopback: /metrics" + (authToken == null ? " and /api/*" : "")
                + " can be read from other hosts" + (authToken == null ? " without a token" : "")
                + "; keep 127.0.0.1 unless a firewall or TLS proxy stands in front";
    }

    public String listen() {
        return HostPort.format(host, port);
    }

    @Override
    public String toString() {
        return "ServerConfig[listen=" + listen() + ", authToken=" + (authToken == null ? "none" : "set")
                + ", allowedHosts=" + allowedHosts + "]";
    }
}
