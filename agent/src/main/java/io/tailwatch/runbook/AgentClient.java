package io.tailwatch.runbook;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.daemon.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads the running agent's API (status and alerts) with a deadline and the bearer token when one is set. */
public final class AgentClient {
    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient client;

    public AgentClient(URI base, String token, Duration timeout) {
        this(base, token, timeout, null);
    }

    /** With {@code tls} (null: the JDK default) for an agent that serves HTTPS. */
    public AgentClient(URI base, String token, Duration timeout, javax.net.ssl.SSLContext tls) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.token = token;
        this.timeout = timeout;
        HttpClient.Builder hb = HttpClient.newBuilder().connectTimeout(timeout);
        if (tls != null) {
            hb.sslContext(tls);
        }
        this.client = hb.build();
    }

    /** GETs a path and parses the JSON; errors name the endpoint. */
    public JsonNode get(String path) throws IOException {
        URI uri = URI.create(base + path);
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
        if (token != null) {
            req.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> resp;
        try {
            resp = client.send(req.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(uri + ": interrupted");
        } catch (IOException e) {
            throw new IOException(uri + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + " (is the agent running? tailwatch run)", e);
        }
        if (resp.statusCode() == 401) {
            throw new IOException(uri + ": 401 unauthorized (pass --token-file or the config with server.auth_token; "
                    + "with basic_auth_users in the web config, set server.auth_token too: the CLI uses the token on /api/*)");
        }
        if (resp.statusCode() != 200) {
            throw new IOException(uri + ": HTTP " + resp.statusCode());
        }
        try {
            return Json.MAPPER.readTree(resp.body());
        } catch (IOException e) {
            throw new IOException(uri + ": not JSON: " + e.getMessage());
        }
    }
}
