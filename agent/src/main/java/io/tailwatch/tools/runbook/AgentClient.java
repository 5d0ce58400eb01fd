package io.tailwatch.tools.runbook;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.json.JsonTree;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the running agent's API (status and alerts) with a deadline and the bearer token when one is set.
 *
 * <p>Uses the plain-socket {@link HttpExchange} rather than {@code java.net.http}: a runbook command
 * runs in a fresh JVM, where starting the JDK's HTTP client (and the TLS stack it initialises even for
 * a plain-HTTP loopback URL) costs about half a second. TLS is loaded only for an {@code https} agent.
 */
public final class AgentClient {
    /**
     * Largest API response read, streamed into the tree (status with many engines and alerts stays well
     * below this); a longer one is an error naming the bound.
     */
    static final int MAX_BODY = 4 * 1024 * 1024;

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final javax.net.ssl.SSLSocketFactory tlsFactory;
    /** USER:PASSWORD for basic auth, sent when there is no bearer token; null for none. */
    private final String basic;

    public AgentClient(URI base, String token, Duration timeout) {
        this(base, token, timeout, null, null);
    }

    public AgentClient(URI base, String token, Duration timeout, javax.net.ssl.SSLContext tls) {
        this(base, token, timeout, tls, null);
    }

    /**
     * With {@code tls} (null: the JDK default) for an agent that serves HTTPS, and {@code basic}
     * (USER:PASSWORD, null for none) for one behind basic auth.
     */
    public AgentClient(URI base, String token, Duration timeout, javax.net.ssl.SSLContext tls, String basic) {
        this.basic = basic;
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.token = token;
        this.timeout = timeout;
        this.tlsFactory = tls == null ? null : tls.getSocketFactory();
    }

    /** GETs a path and parses the JSON; errors name the endpoint. */
    public JsonNode get(String path) throws IOException {
        URI uri = URI.create(base + path);
        long deadline = System.nanoTime() + timeout.toNanos();
        int connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", "application/json");
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        } else if (basic != null) {
            headers.put("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(basic.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        HttpExchange x;
        try {
            x = HttpExchange.send(uri, "GET", headers, null, connectMillis, deadline, tlsFactory);
        } catch (javax.net.ssl.SSLException e) {
            throw new IOException(uri + ": TLS failed: " + describe(e) + tlsHint(e), e);
        } catch (IOException e) {
            boolean https = uri.getScheme().equals("https");
            if (https && !isTls(e) && cutAfterHandshake(e)) {
                // TLS 1.3: the client's side of the handshake ends before the agent has checked the client's
                // certificate; the agent's refusal then arrives as a closed connection on the request's write.
                throw new IOException(uri + ": TLS failed or the connection was cut: " + describe(e) + CLIENT_CERT_HINT, e);
            }
            throw new IOException(uri + ": " + describe(e) + (https && isTls(e) ? tlsHint(e)
                    : " (is the agent running? tailwatch run)"), e);
        }
        try (x) {
            if (x.status() == 401) {
                throw new IOException(uri + ": 401 unauthorized (pass --token-file or the config with server.auth_token; "
                        + "with basic_auth_users in the web config, --basic-auth-file USER:PASSWORD, or server.auth_token)");
            }
            if (x.status() != 200) {
                throw new IOException(uri + ": HTTP " + x.status());
            }
            // Parsed as it is read: the answer's bytes are never held whole.
            try {
                return JsonTree.read(new io.tailwatch.core.http.BodyStream(x, MAX_BODY, deadline));
            } catch (io.tailwatch.core.http.BodyStream.TooLarge e) {
                throw new IOException(uri + ": answer larger than " + e.limit() + " bytes; not read further", e);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                throw new IOException(uri + ": not JSON: " + e.getOriginalMessage());
            } catch (IOException e) {
                throw new IOException(uri + ": reading the response: " + describe(e), e);
            }
        }
    }

    private static boolean isTls(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException || t instanceof java.security.cert.CertificateException) {
                return true;
            }
        }
        return false;
    }

    private static final String CLIENT_CERT_HINT =
            " (the agent refused the handshake: when its web config asks for client certificates, pass --cert and --key)";

    /** A connection closed under an exchange that had connected: a broken pipe or a reset, not a refusal or a timeout. */
    static boolean cutAfterHandshake(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof java.net.SocketException && (m.contains("Broken pipe") || m.contains("Connection reset"))) {
                return true;
            }
        }
        return false;
    }

    /** What to pass when the handshake failed: the trust (--cacert) or a client certificate (--cert/--key). */
    static String tlsHint(Throwable e) {
        String all = "";
        for (Throwable t = e; t != null; t = t.getCause()) {
            all += " " + t.getClass().getSimpleName() + " " + t.getMessage();
        }
        if (all.contains("PKIX") || all.contains("CertPath") || all.contains("not the one in its web config")) {
            return " (the agent's certificate is not trusted: pass --cacert with the CA that signed it, or -c with the agent's config)";
        }
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return " (the agent's certificate does not name this host: use the host name it carries in --url)";
        }
        if (all.contains("certificate_required") || all.contains("bad_certificate") || all.contains("Received fatal alert")) {
            return CLIENT_CERT_HINT;
        }
        return " (is the URL's port the agent's HTTPS listener?)";
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
