package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.config.ConfigException;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.config.WebConfig;
import io.tailwatch.metrics.AttrValues.AuthFailureReason;
import io.tailwatch.testing.TestCerts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebConfigTest {
    @TempDir
    static Path dir;
    static String hash;

    @BeforeAll
    static void certs() throws Exception {
        TestCerts.ca(dir, "ca");
        TestCerts.leaf(dir, "ca", "ec", "ec");
        TestCerts.leaf(dir, "ca", "rsa", "rsa");
        TestCerts.leaf(dir, "ca", "p8", "pkcs8");
        hash = TestCerts.bcrypt("pw");
    }

    private static WebConfig load(String yaml) throws Exception {
        Path f = Files.createTempFile(dir, "web", ".yml");
        Files.writeString(f, yaml);
        return WebConfig.load(f);
    }

    private static String problems(String yaml) {
        try {
            load(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("loaded without a problem: " + yaml);
    }

    @Test
    void readsKeysInEveryFormGoReads() throws Exception {
        assertThat(Files.readString(dir.resolve("ec.key"))).contains("BEGIN EC PRIVATE KEY");
        assertThat(Files.readString(dir.resolve("rsa.key"))).contains("BEGIN RSA PRIVATE KEY");
        assertThat(Files.readString(dir.resolve("p8.key"))).contains("BEGIN PRIVATE KEY");
        for (String name : new String[] {"ec", "rsa", "p8"}) {
            WebConfig c = load("tls_server_config: {cert_file: %s.crt, key_file: %s.key}\n".formatted(name, name));
            assertThat(c.tls().chain()[0].getSubjectX500Principal().getName()).isEqualTo("CN=" + name);
            assertThat(c.tls().key().getAlgorithm()).isEqualTo(name.equals("rsa") ? "RSA" : "EC");
            assertThat(c.tls().protocols()).containsExactly("TLSv1.3", "TLSv1.2");
            assertThat(c.basicAuth()).isFalse();
        }
    }

    @Test
    void emptyFileMeansPlainHttpWithoutAuth() throws Exception {
        WebConfig c = load("");
        assertThat(c.tls()).isNull();
        assertThat(c.basicAuth()).isFalse();
    }

    @Test
    void fullExampleLoads() throws Exception {
        WebConfig c = load("""
                tls_server_config:
                  cert_file: ec.crt
                  key_file: ec.key
                  client_auth_type: RequireAndVerifyClientCert
                  client_ca_file: ca.crt
                  client_allowed_sans: [127.0.0.1]
                  min_version: TLS13
                  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305]
                  prefer_server_cipher_suites: false
                http_server_config:
                  http2: false
                  headers: {Strict-Transport-Security: max-age=31536000, x-frame-options: deny}
                basic_auth_users:
                  prometheus: '%s'
                """.formatted(hash));
        assertThat(c.tls().protocols()).containsExactly("TLSv1.3");
        assertThat(c.tls().clientCertRequired()).isTrue();
        assertThat(c.tls().verifiesClientCert()).isTrue();
        assertThat(c.tls().clientCas()).hasSize(1);
        assertThat(c.tls().cipherSuites()).startsWith("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256").contains("TLS_AES_128_GCM_SHA256");
        assertThat(c.headers()).isEqualTo(Map.of("Strict-Transport-Security", "max-age=31536000", "X-Frame-Options", "deny"));
        assertThat(c.users()).containsOnlyKeys("prometheus");
        assertThat(c.files()).hasSize(4);
    }

    @Test
    void everyProblemNamesItsKey() throws Exception {
        assertThat(problems("basic_auth_users: {alice: plain-text}\n"))
                .contains("basic_auth_users.alice: not a bcrypt hash").doesNotContain("plain-text");
        assertThat(problems("tls_server_config: {cert_file: nope.crt, key_file: ec.key}\n"))
                .contains("tls_server_config.cert_file").contains("nope.crt: no such file");
        assertThat(problems("tls_server_config: {cert_file: ec.crt}\n")).contains("tls_server_config: missing key_file");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: rsa.key}\n"))
                .contains("tls_server_config.key_file").contains("does not match");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, client_auth_type: Always}\n"))
                .contains("tls_server_config.client_auth_type: expected one of NoClientCert");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, client_auth_type: RequireAndVerifyClientCert}\n"))
                .contains("needs client_ca_file");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, client_ca_file: ca.crt}\n"))
                .contains("tls_server_config.client_ca_file").contains("NoClientCert");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, min_version: TLS13, max_version: TLS12}\n"))
                .contains("tls_server_config.min_version");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, min_version: SSL3}\n"))
                .contains("tls_server_config.min_version: expected one of TLS10");
        // The JDK disables TLS 1.0 and 1.1 (jdk.tls.disabledAlgorithms): a listener could not serve them.
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, min_version: TLS11}\n"))
                .contains("tls_server_config.min_version: min_version TLS11: this Java does not serve TLS11")
                .contains("set min_version: TLS12");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, min_version: TLS10, max_version: TLS11}\n"))
                .contains("tls_server_config.max_version").contains("no TLS version up to TLS11");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, cipher_suites: [TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA]}\n"))
                .contains("tls_server_config.cipher_suites").contains("disabled by jdk.tls.disabledAlgorithms");
        assertThat(load("tls_server_config: {cert_file: ec.crt, key_file: ec.key, min_version: TLS12, max_version: TLS12}\n")
                .tls().protocols()).containsExactly("TLSv1.2");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ec.key, cipher_suites: [TLS_FOO]}\n"))
                .contains("tls_server_config.cipher_suites").contains("TLS_FOO");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ca.crt}\n"))
                .contains("tls_server_config.key_file").contains("no PEM private key");
        assertThat(problems("http_server_config: {headers: {Server: x}}\n")).contains("http_server_config.headers.Server");
        assertThat(problems("http_server_config: {headers: {X-Frame-Options: allow}}\n")).contains("deny or sameorigin");
        assertThat(problems("rate_limit: {interval: 1s, burst: 10}\n")).contains("rate_limit: not supported");
        assertThat(problems("tls_config: {}\n")).contains("tls_config: unknown key");
        assertThat(problems("basic_auth_users: [\n")).contains("YAML syntax");
        assertThat(problems("tls_server_config: {cert_file: '', key_file: ec.key}\n"))
                .contains("tls_server_config.cert_file").contains("is empty").doesNotContain("Is a directory");
        assertThat(problems("tls_server_config: {cert_file: ec.crt, key_file: ' '}\n"))
                .contains("tls_server_config.key_file").contains("is empty");
    }

    @Test
    void guardCachesAVerifiedPasswordAndPaysBcryptForEveryFailure() throws Exception {
        Path f = dir.resolve("guard.yml");
        Files.writeString(f, "basic_auth_users: {prometheus: '%s'}\n".formatted(hash));
        BasicAuthGuard g = new BasicAuthGuard(LiveWebConfig.load(f), false);
        Map<String, String> users = WebConfig.load(f).users();
        String good = "Basic " + Base64.getEncoder().encodeToString("prometheus:pw".getBytes(StandardCharsets.UTF_8));
        String bad = "Basic " + Base64.getEncoder().encodeToString("prometheus:px".getBytes(StandardCharsets.UTF_8));
        String stranger = "Basic " + Base64.getEncoder().encodeToString("mallory:pw".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 20; i++) {
            assertThat(g.check(users, good)).isNull();
        }
        assertThat(g.bcryptRuns.get()).isEqualTo(1);
        assertThat(g.check(users, bad)).isEqualTo(AuthFailureReason.WRONG_PASSWORD);
        assertThat(g.check(users, bad)).isEqualTo(AuthFailureReason.WRONG_PASSWORD);
        assertThat(g.bcryptRuns.get()).isEqualTo(3);
        // An unknown user costs a bcrypt too, so timing does not reveal which users exist.
        assertThat(g.check(users, stranger)).isEqualTo(AuthFailureReason.UNKNOWN_USER);
        assertThat(g.bcryptRuns.get()).isEqualTo(4);
        assertThat(g.check(users, null)).isEqualTo(AuthFailureReason.MISSING);
        assertThat(g.check(users, "Bearer x")).isEqualTo(AuthFailureReason.MALFORMED);
        assertThat(g.check(users, "Basic !!!")).isEqualTo(AuthFailureReason.MALFORMED);
        assertThat(g.check(users, good)).isNull();
        assertThat(g.bcryptRuns.get()).isEqualTo(4);
        // A new hash for the user (password changed in the file) misses the cache.
        String other = TestCerts.bcrypt("pw");
        assertThat(g.check(Map.of("prometheus", other), good)).isNull();
        assertThat(g.bcryptRuns.get()).isEqualTo(5);
    }

    private static String hashAt(String password, int cost) {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        return org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, cost);
    }

    private static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    /** An unknown user is checked against a decoy at the highest configured cost, never the fixed cost 10. */
    @Test
    void anUnknownUserPaysTheHighestConfiguredCost() throws Exception {
        Map<String, String> users = Map.of("fast", hashAt("pw", 4), "slow", hashAt("pw", 12));
        assertThat(BasicAuthGuard.cost(BasicAuthGuard.decoy(users))).isEqualTo(12);
        assertThat(BasicAuthGuard.cost(BasicAuthGuard.decoy(Map.of("fast", users.get("fast"))))).isEqualTo(4);
        Path f = dir.resolve("costs.yml");
        Files.writeString(f, "basic_auth_users: {fast: '%s', slow: '%s'}\n".formatted(users.get("fast"), users.get("slow")));
        BasicAuthGuard g = new BasicAuthGuard(LiveWebConfig.load(f), false);
        g.check(users, basic("nobody:x")); // makes the decoy
        long work = g.bcryptWork.get();
        assertThat(g.check(users, basic("slow:wrong"))).isEqualTo(AuthFailureReason.WRONG_PASSWORD);
        long slow = g.bcryptWork.get() - work;
        work = g.bcryptWork.get();
        assertThat(g.check(users, basic("nobody:wrong"))).isEqualTo(AuthFailureReason.UNKNOWN_USER);
        long unknown = g.bcryptWork.get() - work;
        // cost 12 is 256 times the work of cost 4: an unknown user pays exactly what the slow one pays.
        assertThat(slow).isEqualTo(1L << 12);
        assertThat(unknown).as("bcrypt work for an unknown user").isEqualTo(slow);
        work = g.bcryptWork.get();
        assertThat(g.check(users, basic("fast:wrong"))).isEqualTo(AuthFailureReason.WRONG_PASSWORD);
        assertThat(g.bcryptWork.get() - work).as("a cost-4 user pays cost 4").isEqualTo(1L << 4);
    }

    /**
     * Guesses in parallel against one user take at most MAX_BCRYPT checks and that user's queue; its next guess is
     * answered at once without a bcrypt, while a cached password still passes and another user, never verified
     * before, waits its own turn and signs in.
     */
    @Test
    void aGuessingFloodAgainstOneUserIsBoundedAndAnotherUserStillSignsIn() throws Exception {
        Map<String, String> users = Map.of("prometheus", hashAt("pw", 12), "grafana", hashAt("gw", 4));
        Path f = dir.resolve("bounded.yml");
        Files.writeString(f, "basic_auth_users: {prometheus: '%s', grafana: '%s'}\n"
                .formatted(users.get("prometheus"), users.get("grafana")));
        // The shipped bounds, with a wait long enough for a cost-12 bcrypt on a loaded machine.
        BasicAuthGuard g = new BasicAuthGuard(LiveWebConfig.load(f), false,
                new FairTurns(BasicAuthGuard.MAX_BCRYPT, BasicAuthGuard.WAITING_PER_USER, BasicAuthGuard.MAX_WAITING),
                java.time.Duration.ofSeconds(120));
        assertThat(g.check(users, basic("prometheus:pw"))).isNull();
        int flood = BasicAuthGuard.MAX_BCRYPT + BasicAuthGuard.WAITING_PER_USER + 1;
        java.util.concurrent.ExecutorService guessers = java.util.concurrent.Executors.newFixedThreadPool(flood);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            for (int i = 0; i < flood; i++) {
                int n = i;
                guessers.submit(() -> {
                    for (int k = 0; !stop.get(); k++) {
                        try {
                            g.check(users, basic("prometheus:guess" + n + "-" + k));
                        } catch (BasicAuthGuard.Busy busy) {
                            Thread.sleep(5);
                        }
                    }
                    return null;
                });
            }
            // The flood fills its own queue: the next guess is refused at once, without a bcrypt.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).untilAsserted(() ->
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> g.check(users, basic("prometheus:another")))
                            .isInstanceOf(BasicAuthGuard.Busy.class));
            assertThat(g.turns.queued()).isPositive();
            assertThat(g.check(users, basic("prometheus:pw"))).as("a cached password needs no turn").isNull();
            // grafana was never verified: it waits in its own queue, behind at most one of the flood's turns, and signs in.
            long refused = g.turns.refused();
            long floodRuns = g.bcryptRuns.get();
            assertThat(g.check(users, basic("grafana:gw"))).isNull();
            assertThat(g.verifiedUsers()).isEqualTo(2);
            assertThat(g.bcryptRuns.get() - floodRuns).as("grafana's bcrypt and the flood's in between")
                    .isLessThanOrEqualTo(1 + flood);
            assertThat(refused).isPositive();
            stop.set(true);
        } finally {
            guessers.shutdownNow();
        }
    }

    /** A user name with ':' is accepted, as node_exporter's web config accepts it, and signs in. */
    @Test
    void aUserNameWithAColonIsAcceptedAndSignsIn() throws Exception {
        String h = hashAt("p:w", 4);
        Path f = dir.resolve("colon.yml");
        Files.writeString(f, "basic_auth_users: {'team:scrape': '%s'}\n".formatted(h));
        Map<String, String> users = WebConfig.load(f).users();
        assertThat(users).containsOnlyKeys("team:scrape");
        BasicAuthGuard g = new BasicAuthGuard(LiveWebConfig.load(f), false);
        assertThat(g.check(users, basic("team:scrape:p:w"))).isNull();
        assertThat(g.check(users, basic("team:scrape:p"))).isEqualTo(AuthFailureReason.WRONG_PASSWORD);
        assertThat(g.check(users, basic("team:x"))).isEqualTo(AuthFailureReason.UNKNOWN_USER);
    }

    @Test
    void logEscapingKeepsControlCharactersOut() {
        assertThat(BasicAuthGuard.escape("bob\n2026 INFO forged")).isEqualTo("\"bob\\u000a2026 INFO forged\"");
    }

    @Test
    void warningOnlyOffLoopbackAndNamesWhatIsMissing() {
        assertThat(ListenerSecurity.warning("127.0.0.1", 9531, false, false, false)).isNull();
        assertThat(ListenerSecurity.warning("::1", 9531, false, false, false)).isNull();
        assertThat(ListenerSecurity.warning("localhost", 9531, false, false, false)).isNull();
        assertThat(ListenerSecurity.warning("0.0.0.0", 9531, true, true, false)).isNull();
        assertThat(ListenerSecurity.warning("0.0.0.0", 9531, false, true, false)).contains("without TLS").doesNotContain("authentication");
        assertThat(ListenerSecurity.warning("0.0.0.0", 9531, true, false, true)).contains("without authentication")
                .contains("bearer token guards /api/* only");
        assertThat(ListenerSecurity.warning("0.0.0.0", 9531, false, false, false)).contains("without TLS").contains("without authentication");
    }
}
