package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.HostPort;
import io.tailwatch.core.config.ServerConfig;
import io.tailwatch.tools.runbook.AgentClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** How a command reaches the running agent: --url, --token-file, or the config's listen address and token. */
public final class AgentOptions {
    @Mixin
    ConfigOptions config;

    @Option(names = "--url", paramLabel = "URL", description = "Agent base URL (default: http:// + server.listen of the config).")
    URI url;

    @Option(names = "--token-file", paramLabel = "FILE", description = "File holding the API bearer token (default: the config's).")
    Path tokenFile;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5s", description = "Deadline per request (default: ${DEFAULT-VALUE}).")
    String timeout;

    URI baseUrl;

    /** The command these options are mixed into: its error writer says why there is no client. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Builds the client or prints why not on the command's error writer and returns null (exit 2). */
    AgentClient client() {
        PrintWriter err = mixee.commandLine().getErr();
        ServerConfig server;
        if (config.config == null) {
            // The built-in defaults: their server settings, without starting the YAML parser.
            server = ServerConfig.defaults();
        } else {
            Config c = config.loadOrReport(err);
            if (c == null) {
                return null;
            }
            server = c.server();
        }
        javax.net.ssl.SSLContext tls = null;
        if (server.webConfigFile() != null) {
            try {
                io.tailwatch.core.config.WebConfig web = io.tailwatch.core.config.WebConfig.load(server.webConfigFile());
                if (web.tls() != null) {
                    tls = io.tailwatch.core.tls.PinnedTls.trusting(web.tls().chain()[0]);
                }
            } catch (io.tailwatch.core.config.ConfigException e) {
                err.print(e.problems().render());
                err.flush();
                return null;
            }
        }
        baseUrl = url != null ? url : URI.create((tls != null ? "https://" : "http://") + HostPort.format(
                server.host().equals("0.0.0.0") ? "127.0.0.1" : server.host(), server.port()));
        String token = server.authToken();
        if (tokenFile != null) {
            try {
                token = Files.readString(tokenFile).strip();
            } catch (IOException e) {
                err.println("--token-file: cannot read " + tokenFile + ": " + e.getClass().getSimpleName());
                return null;
            }
        }
        Duration d;
        try {
            d = io.tailwatch.core.units.Units.duration(timeout);
        } catch (IllegalArgumentException e) {
            err.println("--timeout: " + e.getMessage());
            return null;
        }
        return new AgentClient(baseUrl, token == null || token.isBlank() ? null : token, d, tls);
    }
}
