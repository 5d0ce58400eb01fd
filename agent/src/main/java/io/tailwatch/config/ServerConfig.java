package io.tailwatch.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** HTTP listener and API protection. The token is never logged nor exported. */
public record ServerConfig(String host, int port, String authToken) {
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
        s.finish();
        return new ServerConfig(hp.host(), hp.port(), token);
    }

    public String listen() {
        return HostPort.format(host, port);
    }

    @Override
    public String toString() {
        return "ServerConfig[listen=" + listen() + ", authToken=" + (authToken == null ? "none" : "set") + "]";
    }
}
