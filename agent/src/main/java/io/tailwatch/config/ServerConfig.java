package io.tailwatch.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HTTP listener and API protection. The token is never logged nor exported. {@code webConfigFile}: the
 * exporter-toolkit web config (TLS, basic auth, headers), checked when the config is read.
 */
public record ServerConfig(String host, int port, String authToken, Path webConfigFile) {
    public static final String DEFAULT_LISTEN = "127.0.0.1:9531";

    public ServerConfig(String host, int port, String authToken) {
        this(host, port, authToken, null);
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
        String tokenFile = s.string("auth_token_file", null);
        if (token != null && tokenFile != null) {
            s.problem("auth_token_file", "set auth_token or auth_token_file, not both");
        } else if (tokenFile != null) {
            try {
                token = Files.readString(Path.of(tokenFile)).strip();
            } catch (IOException e) {
                s.problem("auth_token_file", "cannot read the token file: " + e.getClass().getSimpleName());
            }
        }
        if (token != null && token.isBlank()) {
            token = null;
        }
        String web = s.string("web_config_file", null);
        Path webFile = null;
        if (web != null && !web.isBlank()) {
            webFile = Path.of(web);
            String problem = checkWebConfig(webFile);
            if (problem != null) {
                s.problem("web_config_file", problem);
            }
        }
        s.finish();
        return new ServerConfig(hp.host(), hp.port(), token, webFile);
    }

    /** Null when the web config file loads; else every problem, each naming its key. */
    public static String checkWebConfig(Path file) {
        try {
            io.tailwatch.web.WebConfig.load(file);
            return null;
        } catch (ConfigException e) {
            return String.join("; ", e.problems().list().stream().map(p -> file + ": " + p).toList());
        }
    }

    public ServerConfig withWebConfigFile(Path file) {
        return new ServerConfig(host, port, authToken, file);
    }

    public String listen() {
        return HostPort.format(host, port);
    }

    @Override
    public String toString() {
        return "ServerConfig[listen=" + listen() + ", authToken=" + (authToken == null ? "none" : "set")
                + (webConfigFile == null ? "" : ", webConfigFile=" + webConfigFile) + "]";
    }
}
