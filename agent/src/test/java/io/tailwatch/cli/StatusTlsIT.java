package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.TestCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tailwatch status --url https://...` against real agents behind a web config, from a shell that has
 * only the URL and the files a runbook hands out: the CA (--cacert), a client certificate (--cert,
 * --key) and the scrape credentials (--basic-auth-file). Without them the error names the TLS failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusTlsIT {
    private static final String PASSWORD = "runbook-s3cret";
    private Path dir;
    private AgentProcess basic;
    private AgentProcess mtls;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        dir = tmp;
        TestCerts.ca(dir, "ca");
        TestCerts.leaf(dir, "ca", "server", "ec");
        TestCerts.leaf(dir, "ca", "client", "pkcs8");
        Files.writeString(dir.resolve("basic.yml"), """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                basic_auth_users:
                  oncall: '%s'
                """.formatted(TestCerts.bcrypt(PASSWORD)));
        TestCerts.mutualTlsWebConfig(dir, "mtls.yml");
        Files.writeString(dir.resolve("creds"), "oncall:" + PASSWORD + "\n");
        basic = AgentProcess.start(Map.of(), "run", "--listen", "127.0.0.1:0", "--web-config-file", dir.resolve("basic.yml").toString());
        mtls = AgentProcess.start(Map.of(), "run", "--listen", "127.0.0.1:0", "--web-config-file", dir.resolve("mtls.yml").toString());
        basic.awaitListening();
        mtls.awaitListening();
    }

    @AfterAll
    void stop() {
        basic.close();
        mtls.close();
    }

    private AgentProcess.Result status(AgentProcess agent, String... extra) throws Exception {
        String[] args = new String[extra.length + 5];
        args[0] = "status";
        args[1] = "--url";
        args[2] = "https://127.0.0.1:" + agent.port();
        args[3] = "--timeout";
        args[4] = "60s"; // a fresh JVM's first TLS handshake on a loaded machine takes seconds
        System.arraycopy(extra, 0, args, 5, extra.length);
        return AgentProcess.run(Map.of(), args);
    }

    @Test
    void withoutTheCaTheErrorNamesTheUntrustedCertificateNotAStoppedAgent() throws Exception {
        AgentProcess.Result r = status(basic);
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("TLS failed", "not trusted", "--cacert").doesNotContain("is the agent running");
    }

    @Test
    void theCaAndTheCredentialsFileReachAnAgentBehindBasicAuth() throws Exception {
        AgentProcess.Result noCreds = status(basic, "--cacert", dir.resolve("ca.crt").toString());
        assertThat(noCreds.exitCode()).isNotZero();
        assertThat(noCreds.stderr()).contains("401", "--basic-auth-file");
        AgentProcess.Result ok = status(basic, "--cacert", dir.resolve("ca.crt").toString(), "--basic-auth-file", dir.resolve("creds").toString());
        assertThat(ok.exitCode()).as(ok.stderr()).isZero();
        assertThat(ok.stdout()).contains("https://127.0.0.1:" + basic.port()).doesNotContain(PASSWORD);
    }

    @Test
    void aClientCertificateReachesAnAgentThatDemandsOne() throws Exception {
        AgentProcess.Result refused = status(mtls, "--cacert", dir.resolve("ca.crt").toString());
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.stderr()).contains("TLS failed").contains("--cert and --key");
        AgentProcess.Result ok = status(mtls, "--cacert", dir.resolve("ca.crt").toString(),
                "--cert", dir.resolve("client.crt").toString(), "--key", dir.resolve("client.key").toString());
        assertThat(ok.exitCode()).as(ok.stderr()).isZero();
    }

    @Test
    void aCertWithoutItsKeyAndAnUnreadableCaAreUsageErrorsNamingTheOption() throws Exception {
        AgentProcess.Result half = status(mtls, "--cert", dir.resolve("client.crt").toString());
        assertThat(half.exitCode()).isEqualTo(2);
        assertThat(half.stderr()).contains("--cert: give --key with it");
        AgentProcess.Result badCa = status(mtls, "--cacert", dir.resolve("creds").toString());
        assertThat(badCa.exitCode()).isEqualTo(2);
        assertThat(badCa.stderr()).contains("--cacert: ").contains("no PEM certificate");
    }
}
