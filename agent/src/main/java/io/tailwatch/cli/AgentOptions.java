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

    @Option(names = "--cacert", paramLabel = "FILE", description = "PEM file of the CA(s) that signed an HTTPS agent's certificate "
            + "(default: the certificate of the config's web config, else the JVM's trust store).")
    Path caCert;

    @Option(names = "--cert", paramLabel = "FILE", description = "PEM client certificate, for an agent whose web config asks for one (with --key).")
    Path clientCert;

    @Option(names = "--key", paramLabel = "FILE", description = "PEM private key of --cert (unencrypted).")
    Path clientKey;

    @Option(names = "--basic-auth-file", paramLabel = "FILE", description = "File holding USER:PASSWORD for an agent behind "
            + "basic_auth_users (used on /api/* when no bearer token is set).")
    Path basicAuthFile;

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
        if ((clientCert == null) != (clientKey == null)) {
            err.println(clientCert == null ? "--key: give --cert with it" : "--cert: give --key with it");
            return null;
        }
        if (caCert != null || clientCert != null) {
            try {
                tls = io.tailwatch.core.tls.ClientTls.context(caCert, clientCert, clientKey);
            } catch (IOException e) {
                err.println((clientCert == null ? "--cacert: " : "--cacert/--cert/--key: ") + e.getMessage());
                return null;
            }
        }
        String basic = null;
        if (basicAuthFile != null) {
            try {
                basic = Files.readString(basicAuthFile).strip();
            } catch (IOException e) {
                err.println("--basic-auth-file: cannot read " + basicAuthFile + ": " + e.getClass().getSimpleName());
                return null;
            }
            if (basic.indexOf(':') <= 0 || basic.indexOf(':') == basic.length() - 1 || basic.contains("\n")) {
                err.println("--basic-auth-file: " + basicAuthFile + " must hold one line USER:PASSWORD (neither empty)");
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
        return new AgentClient(baseUrl, token == null || token.isBlank() ? null : token, d, tls, basic);
    }
}
