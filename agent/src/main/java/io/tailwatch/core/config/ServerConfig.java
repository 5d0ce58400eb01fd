package io.tailwatch.core.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HTTP listener and API protection. The token is never logged nor exported. {@code webConfigFile}: the
 * exporter-toolkit web config (TLS, basic auth, headers), checked when the config is read.
 * {@code allowedHosts}: names besides IP literals and localhost the Host header may carry.
 */
public record ServerConfig(String host, int port, String authToken, Path webConfigFile,
                           java.util.List<String> allowedHosts) {
    public static final String DEFAULT_LISTEN = "127.0.0.1:9531";

    public ServerConfig(String host, int port, String authToken) {
        this(host, port, authToken, null, java.util.List.of());
    }

    public ServerConfig(String host, int port, String authToken, Path webConfigFile) {
        this(host, port, authToken, webConfigFile, java.util.List.of());
    }

    /**
     * The server settings of the built-in defaults, made without reading YAML: config/tailwatch.yaml
     * sets each server key to what {@link #read} gives when the key is absent (ConfigTest holds the two
     * equal). A runbook command reaching the agent needs only these, and starting the YAML parser costs
     * it more than its own work (docs/performance.md, "Runbook command start-up").
     */
    public static ServerConfig defaults() {
        return read(new Section(null, "server", new Problems("built-in defaults (config/tailwatch.yaml)"), java.util.Map.of()));
    }

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
        Path webFile = s.path("web_config_file", null);
        if (webFile != null) {
            String problem = checkWebConfig(webFile);
            if (problem != null) {
                s.problem("web_config_file", problem);
            }
        }
        s.finish();
        return new ServerConfig(hp.host(), hp.port(), token, webFile, java.util.List.copyOf(allowed));
    }

    /** Null when the web config file loads; else every problem, each naming its key. */
    public static String checkWebConfig(Path file) {
        try {
            io.tailwatch.core.config.WebConfig.load(file);
            return null;
        } catch (ConfigException e) {
            return String.join("; ", e.problems().list().stream().map(p -> file + ": " + p).toList());
        }
    }

    public ServerConfig withWebConfigFile(Path file) {
        return new ServerConfig(host, port, authToken, file, allowedHosts);
    }

    public String listen() {
        return HostPort.format(host, port);
    }

    @Override
    public String toString() {
        return "ServerConfig[listen=" + listen() + ", authToken=" + (authToken == null ? "none" : "set")
                + (webConfigFile == null ? "" : ", webConfigFile=" + webConfigFile) + ", allowedHosts=" + allowedHosts + "]";
    }
}
