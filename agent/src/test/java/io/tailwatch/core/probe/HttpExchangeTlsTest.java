package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.ProbeErrors;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** https engines: a loopback TLS server with a certificate made by keytool for 127.0.0.1. */
class HttpExchangeTlsTest {
    private static final char[] PASS = "changeit".toCharArray();
    @TempDir
    static Path dir;
    static HttpsServer server;
    static SSLContext trusting;

    @BeforeAll
    static void start() throws Exception {
        Path ks = dir.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "engine", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=engine.test", "-ext", "SAN=ip:127.0.0.1", "-validity", "2",
                "-keystore", ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();

        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            keys.load(in, PASS);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASS);
        SSLContext serverCtx = SSLContext.getInstance("TLS");
        serverCtx.init(kmf.getKeyManagers(), null, null);

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        Certificate cert = keys.getCertificate("engine");
        trust.setCertificateEntry("engine", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, tmf.getTrustManagers(), null);

        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverCtx));
        server.createContext("/api/version", ex -> {
            byte[] body = "{\"version\":\"0.12.6\"}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().put("Content-Type", List.of("application/json"));
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static URI uri() {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/api/version");
    }

    @Test
    void httpsExchangeWithATrustedCertificate() throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        try (HttpExchange x = HttpExchange.send(uri(), "GET", Map.of("Accept", "application/json"), null, 5000, deadline,
                trusting.getSocketFactory())) {
            assertThat(x.status()).isEqualTo(200);
            assertThat(x.header("content-type")).isEqualTo("application/json");
            assertThat(new String(x.readBody(1024, deadline), StandardCharsets.UTF_8)).isEqualTo("{\"version\":\"0.12.6\"}");
        }
    }

    @Test
    void anUntrustedCertificateIsRefused() {
        // The JVM's default trust store does not know this self-signed certificate.
        assertThatThrownBy(() -> HttpExchange.send(uri(), "GET", Map.of(), null, 5000,
                System.nanoTime() + 10_000_000_000L)).isInstanceOf(SSLException.class);
        // and a probe reports it as such, not as a cut connection
        try (EngineClient c = EngineClients.create("ollama", URI.create("https://127.0.0.1:" + server.getAddress().getPort()),
                null)) {
            EngineHealth h = c.health(Duration.ofSeconds(10));
            assertThat(h.up()).isFalse();
            assertThat(h.error()).contains("SSLHandshakeException");
            ProbeResult r = c.probe(new ProbeRequest("m", 8, 4, 0, Duration.ofSeconds(5),
                    Duration.ofSeconds(10)));
            assertThat(r.errorType()).isEqualTo(ProbeErrors.OTHER);
            assertThat(r.errorMessage()).contains("SSLHandshakeException");
        }
    }
}
