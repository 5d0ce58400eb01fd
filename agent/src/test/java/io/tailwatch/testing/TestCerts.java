package io.tailwatch.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Certificates and keys made by the openssl command line, and bcrypt hashes made by Python's crypt (libxcrypt). */
public final class TestCerts {
    private TestCerts() {
    }

    /** A self-signed CA: DIR/NAME.crt and DIR/NAME.key. */
    public static Path ca(Path dir, String name) throws IOException {
        requireOpenssl();
        run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", name + ".key", "-out", name + ".crt", "-days", "2", "-subj", "/CN=" + name,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return dir.resolve(name + ".crt");
    }

    /**
     * A leaf certificate signed by CA (DIR/CA.crt, DIR/CA.key) for 127.0.0.1 and localhost: DIR/NAME.crt
     * and DIR/NAME.key. keyType: "ec" (SEC1 "EC PRIVATE KEY"), "rsa" (PKCS#1 "RSA PRIVATE KEY") or
     * "pkcs8" (an EC key as "PRIVATE KEY").
     */
    public static Path leaf(Path dir, String ca, String name, String keyType) throws IOException {
        switch (keyType) {
            case "ec" -> run(dir, "openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name + ".key");
            case "rsa" -> run(dir, "openssl", "genrsa", "-traditional", "-out", name + ".key", "2048");
            case "pkcs8" -> run(dir, "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-out", name + ".key");
            default -> throw new IllegalArgumentException(keyType);
        }
        run(dir, "openssl", "req", "-new", "-key", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name);
        Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n");
        run(dir, "openssl", "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-CAcreateserial", "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext");
        return dir.resolve(name + ".crt");
    }

    /**
     * Writes the web config FILE in {@code dir} that serves server.crt/.key and requires a client certificate
     * signed by ca.crt (mutual TLS), and returns its path.
     */
    public static Path mutualTlsWebConfig(Path dir, String file) throws IOException {
        return Files.writeString(dir.resolve(file), """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                  client_auth_type: RequireAndVerifyClientCert
                  client_ca_file: ca.crt
                """);
    }

    /** Copies FROM.crt/.key over TO.crt/.key by atomic moves, key first (as a rotation tool would). */
    public static void rotate(Path dir, String from, String to) throws IOException {
        for (String ext : List.of(".key", ".crt")) {
            Path tmp = dir.resolve(to + ext + ".tmp");
            Files.copy(dir.resolve(from + ext), tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, dir.resolve(to + ext), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /**
     * A bcrypt hash ($2b$, cost 10) of the password, made by libxcrypt through Python's crypt module (an
     * implementation other than the agent's); where Python has no crypt module (3.13+), by BouncyCastle.
     */
    public static String bcrypt(String password) throws IOException {
        try {
            return run(Path.of("."), "python3", "-W", "ignore", "-c",
                    "import crypt,sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))",
                    password).strip();
        } catch (IOException e) {
            byte[] salt = new byte[16];
            new java.security.SecureRandom().nextBytes(salt);
            return org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2b", password.toCharArray(), salt, 10);
        }
    }

    /** Skips the test when openssl is missing, unless TAILWATCH_REQUIRE_PROMTOOL=1 (CI installs it). */
    public static void requireOpenssl() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, "openssl"))) {
                return;
            }
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
            throw new AssertionError("openssl is required (TAILWATCH_REQUIRE_PROMTOOL=1) but not on PATH");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(false, "openssl not installed");
    }

    private static String run(Path dir, String... cmd) throws IOException {
        Files.createDirectories(dir);
        List<String> c = new ArrayList<>(List.of(cmd));
        Process p = new ProcessBuilder(c).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": did not finish in 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + out);
        }
        return out;
    }
}
