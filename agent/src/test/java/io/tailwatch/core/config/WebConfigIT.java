package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.PrometheusServer;
import io.tailwatch.testing.TestCerts;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar behind the exporter-toolkit web config: certificates from openssl, bcrypt hashes from
 * libxcrypt, Debian's Prometheus scraping over HTTPS with basic auth, plain HTTP refused, client
 * certificates required, and a certificate rotated on disk served on the next connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebConfigIT {
    private static final String PASSWORD = "scrape-s3cret";

    private Path dir;
    private AgentProcess agent;
    private AgentProcess mtls;
    private SSLContext trustCa;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        dir = tmp;
        TestCerts.ca(dir, "ca");
        TestCerts.leaf(dir, "ca", "server", "ec");
        TestCerts.leaf(dir, "ca", "server2", "rsa");
        TestCerts.leaf(dir, "ca", "client", "pkcs8");
        String hash = TestCerts.bcrypt(PASSWORD);
        Files.writeString(dir.resolve("web.yml"), """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                  min_version: TLS12
                http_server_config:
                  headers:
                    X-Content-Type-Options: nosniff
                basic_auth_users:
                  prometheus: '%s'
                """.formatted(hash));
        TestCerts.mutualTlsWebConfig(dir, "mtls.yml");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + dir.resolve("web.yml") + "}\n"
                + "host: {interval: 1s, timeout: 800ms}\n");
        agent = AgentProcess.start(Map.of(), "run", "-c", config.toString());
        agent.awaitListening();
        mtls = AgentProcess.start(Map.of(), "run", "--listen", "127.0.0.1:0", "--web-config-file", dir.resolve("mtls.yml").toString());
        mtls.awaitListening();
        trustCa = context(null);
    }

    @AfterAll
    void stop() {
        for (AgentProcess p : new AgentProcess[] {agent, mtls}) {
            if (p != null) {
                p.close();
            }
        }
    }

    private SSLContext context(String clientName) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(dir.resolve("ca.crt"))) {
            trust.setCertificateEntry("ca", cf.generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientName != null) {
            // The client key pair as PKCS#12, made by openssl too.
            Path p12 = dir.resolve(clientName + ".p12");
            new ProcessBuilder("openssl", "pkcs12", "-export", "-in", clientName + ".crt", "-inkey", clientName + ".key",
                    "-out", p12.getFileName().toString(), "-passout", "pass:pw").directory(dir.toFile()).inheritIO().start().waitFor();
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(p12)) {
                ks.load(in, "pw".toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, "pw".toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    private static HttpResponse<String> get(SSLContext ctx, String url, String user, String password) throws Exception {
        HttpClient c = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String https(AgentProcess p, String path) {
        return "https://127.0.0.1:" + p.port() + path;
    }

    @Test
    void prometheusScrapesOverHttpsWithBasicAuth() throws Exception {
        Path promDir = dir.resolve("prom");
        Files.createDirectories(promDir);
        Path cfg = promDir.resolve("prometheus.yml");
        Files.writeString(cfg, """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                scrape_configs:
                  - job_name: tailwatch
                    scheme: https
                    tls_config: {ca_file: %s}
                    basic_auth: {username: prometheus, password: %s}
                    static_configs: [{targets: ['127.0.0.1:%d']}]
                """.formatted(dir.resolve("ca.crt"), PASSWORD, agent.port()));
        try (PrometheusServer prom = PrometheusServer.start(promDir, cfg)) {
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    prom.query("up{job=\"tailwatch\"} == 1").path("data").path("result").size() == 1);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    prom.query("tailwatch_sampler_success").path("data").path("result").size() > 0);
        }
    }

    @Test
    void rightPasswordIsServedAndWrongPasswordIsRefusedAndCounted() throws Exception {
        HttpResponse<String> ok = get(trustCa, https(agent, "/metrics"), "prometheus", PASSWORD);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        HttpResponse<String> wrong = get(trustCa, https(agent, "/metrics"), "prometheus", "guess");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Basic");
        assertThat(get(trustCa, https(agent, "/metrics"), null, null).statusCode()).isEqualTo(401);
        assertThat(get(trustCa, https(agent, "/api/v1/status"), "nobody", PASSWORD).statusCode()).isEqualTo(401);
        assertThat(get(trustCa, https(agent, "/"), null, null).statusCode()).isEqualTo(401);
        assertThat(get(trustCa, https(agent, "/ui/"), null, null).statusCode()).isEqualTo(401);
        assertThat(get(trustCa, https(agent, "/ui/"), "prometheus", PASSWORD).statusCode()).isEqualTo(200);
        // /healthz is left open (docs/fleet.md says why).
        assertThat(get(trustCa, https(agent, "/healthz"), null, null).statusCode()).isIn(200, 503);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            String m = get(trustCa, https(agent, "/metrics"), "prometheus", PASSWORD).body();
            assertThat(m).contains("tailwatch_http_auth_failures_total{tailwatch_http_auth_failure_reason=\"wrong_password\"} 1")
                    .contains("tailwatch_http_auth_failures_total{tailwatch_http_auth_failure_reason=\"missing\"} 3")
                    .contains("tailwatch_http_auth_failures_total{tailwatch_http_auth_failure_reason=\"unknown_user\"} 1");
        });
        // Logged with the user, never the password.
        assertThat(agent.stderr()).contains("basic auth failed (wrong_password)").doesNotContain("guess");
        com.fasterxml.jackson.databind.JsonNode listener = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(get(trustCa, https(agent, "/api/v1/status"), "prometheus", PASSWORD).body()).path("listener");
        assertThat(listener.path("tls").asBoolean()).isTrue();
        assertThat(listener.path("basic_auth").asBoolean()).isTrue();
        assertThat(listener.path("loopback").asBoolean()).isTrue();
        assertThat(listener.path("warning").asText("")).isEmpty();
        assertThat(listener.path("api_token").asBoolean()).isFalse();
    }

    @Test
    void plainHttpToTheTlsListenerIsAnswered400() throws Exception {
        // As node_exporter answers it: a 400 that says the port serves HTTPS, then the connection closes.
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = plain.send(HttpRequest.newBuilder(URI.create(agent.url("/metrics")))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("this port serves HTTPS");
        // and the listener still serves HTTPS after it
        assertThat(get(trustCa, https(agent, "/healthz"), null, null).statusCode()).isIn(200, 503);
    }

    @Test
    void clientCertificateRequiredAndMissingIsRefused() throws Exception {
        assertThatThrownBy(() -> get(trustCa, https(mtls, "/metrics"), null, null)).isInstanceOf(IOException.class);
        assertThat(get(context("client"), https(mtls, "/metrics"), null, null).statusCode()).isEqualTo(200);
        // A certificate from another CA is refused too.
        Path other = dir.resolve("other");
        TestCerts.ca(other, "otherca");
        TestCerts.leaf(other, "otherca", "stranger", "ec");
        Files.copy(other.resolve("stranger.crt"), dir.resolve("stranger.crt"));
        Files.copy(other.resolve("stranger.key"), dir.resolve("stranger.key"));
        SSLContext stranger = context("stranger");
        assertThatThrownBy(() -> get(stranger, https(mtls, "/metrics"), null, null)).isInstanceOf(IOException.class);
    }

    private X509Certificate served(int port) throws Exception {
        try (SSLSocket s = (SSLSocket) trustCa.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.startHandshake();
            return (X509Certificate) s.getSession().getPeerCertificates()[0];
        }
    }

    @Test
    void certificateRotatedOnDiskIsServedOnTheNextConnection() throws Exception {
        Path rot = dir.resolve("rot");
        Files.createDirectories(rot);
        for (String f : List.of("server.crt", "server.key", "server2.crt", "server2.key")) {
            Files.copy(dir.resolve(f), rot.resolve(f));
        }
        Files.writeString(rot.resolve("web.yml"), "tls_server_config: {cert_file: server.crt, key_file: server.key}\n");
        try (AgentProcess p = AgentProcess.start(Map.of(), "run", "--listen", "127.0.0.1:0",
                "--web-config-file", rot.resolve("web.yml").toString())) {
            p.awaitListening();
            assertThat(served(p.port()).getSubjectX500Principal().getName()).isEqualTo("CN=server");
            TestCerts.rotate(rot, "server2", "server");
            assertThat(served(p.port()).getSubjectX500Principal().getName()).isEqualTo("CN=server2");
            assertThat(get(trustCa, "https://127.0.0.1:" + p.port() + "/metrics", null, null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void withATokenTheApiTakesTheTokenAndTheCliReachesTheHttpsAgent() throws Exception {
        Path config = dir.resolve("token.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, auth_token: api-t0ken, web_config_file: "
                + dir.resolve("web.yml") + "}\nhost: {interval: 1s, timeout: 800ms}\n");
        try (AgentProcess p = AgentProcess.start(Map.of(), "run", "-c", config.toString())) {
            int port = p.awaitListening();
            String base = "https://127.0.0.1:" + port;
            HttpClient c = HttpClient.newBuilder().sslContext(trustCa).build();
            HttpResponse<String> api = c.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/status"))
                    .header("Authorization", "Bearer api-t0ken").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(api.statusCode()).isEqualTo(200);
            assertThat(get(trustCa, base + "/api/v1/status", "prometheus", PASSWORD).statusCode()).isEqualTo(401);
            assertThat(get(trustCa, base + "/metrics", "prometheus", PASSWORD).statusCode()).isEqualTo(200);
            HttpResponse<String> metricsWithToken = c.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                    .header("Authorization", "Bearer api-t0ken").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(metricsWithToken.statusCode()).isEqualTo(401);
            // `tailwatch status` reads the same config: HTTPS (trusting the configured certificate) and the token.
            Path cli = dir.resolve("token-cli.yaml");
            Files.writeString(cli, Files.readString(config).replace("127.0.0.1:0", "127.0.0.1:" + port));
            AgentProcess.Result status = AgentProcess.run(Map.of(), "status", "-c", cli.toString());
            assertThat(status.exitCode()).as(status.stderr()).isEqualTo(0);
            assertThat(status.stdout()).contains("https://127.0.0.1:" + port).doesNotContain("WARNING");
        }
    }

    @Test
    void brokenWebConfigStopsTheStartWithExit2NamingTheKey() throws Exception {
        Files.writeString(dir.resolve("plain-pw.yml"), "basic_auth_users:\n  alice: not-a-hash\n");
        AgentProcess.Result r = AgentProcess.run(Map.of(), "run", "--listen", "127.0.0.1:0",
                "--web-config-file", dir.resolve("plain-pw.yml").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("basic_auth_users.alice").contains("not a bcrypt hash").doesNotContain("not-a-hash");

        Files.writeString(dir.resolve("no-cert.yml"), "tls_server_config: {cert_file: missing.crt, key_file: server.key}\n");
        Path config = dir.resolve("no-cert.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + dir.resolve("no-cert.yml") + "}\n");
        r = AgentProcess.run(Map.of(), "run", "-c", config.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("server.web_config_file").contains("tls_server_config.cert_file").contains("missing.crt");
        AgentProcess.Result check = AgentProcess.run(Map.of(), "config", "check", config.toString());
        assertThat(check.exitCode()).isEqualTo(2);
        assertThat(check.stdout() + check.stderr()).contains("tls_server_config.cert_file");

        Files.writeString(dir.resolve("bad-yaml.yml"), "tls_server_config: [\n");
        r = AgentProcess.run(Map.of(), "run", "--listen", "127.0.0.1:0", "--web-config-file", dir.resolve("bad-yaml.yml").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("bad-yaml.yml").contains("YAML");
    }
    @Test
    void aTlsVersionOrCipherTheRuntimeDisablesIsRefusedByConfigCheckAndAtStartNamingTheKey() throws Exception {
        String[][] cases = {
                {"min_version: TLS10", "tls_server_config.min_version", "TLS10"},
                {"min_version: TLS10, max_version: TLS11", "tls_server_config.max_version", "TLS11"},
                {"max_version: TLS12, cipher_suites: [TLS_RSA_WITH_3DES_EDE_CBC_SHA]", "tls_server_config.cipher_suites",
                        "disabled by jdk.tls.disabledAlgorithms"}};
        for (int i = 0; i < cases.length; i++) {
            Path web = dir.resolve("old-tls-" + i + ".yml");
            Files.writeString(web, "tls_server_config: {cert_file: server.crt, key_file: server.key, " + cases[i][0] + "}\n");
            Path config = dir.resolve("old-tls-" + i + ".yaml");
            Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + web + "}\n");
            AgentProcess.Result check = AgentProcess.run(Map.of(), "config", "check", config.toString());
            assertThat(check.exitCode()).as(cases[i][0]).isEqualTo(2);
            assertThat(check.stdout() + check.stderr()).as(cases[i][0]).contains(cases[i][1]).contains(cases[i][2]);
            AgentProcess.Result run = AgentProcess.run(Map.of(), "run", "--listen", "127.0.0.1:0", "--web-config-file", web.toString());
            assertThat(run.exitCode()).as(cases[i][0]).isEqualTo(2);
            assertThat(run.stderr()).as(cases[i][0]).contains(cases[i][1]).contains(cases[i][2]);
        }
    }
}
