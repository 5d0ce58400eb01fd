package io.tailwatch.bench;

import io.tailwatch.daemon.api.BasicAuthGuard;
import io.tailwatch.metrics.AttrValues.AuthFailureReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What basic auth costs a scrape: a request whose credentials were verified before (the cache: an
 * HMAC and a constant-time compare) against the first request after start or a password change (one
 * bcrypt at cost 10, as `htpasswd -nBC 10` makes).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BasicAuthBenchmark {
    private Map<String, String> users;
    private String header;
    private BasicAuthGuard cached;
    private Path file;

    @Setup
    public void setUp() throws Exception {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        users = Map.of("prometheus", OpenBSDBCrypt.generate("2y", "scrape-s3cret".toCharArray(), salt, 10));
        header = "Basic " + Base64.getEncoder().encodeToString("prometheus:scrape-s3cret".getBytes(StandardCharsets.UTF_8));
        file = Files.createTempFile("web", ".yml");
        Files.writeString(file, "basic_auth_users: {prometheus: '" + users.get("prometheus") + "'}\n");
        cached = new BasicAuthGuard(io.tailwatch.core.config.LiveWebConfig.load(file), false);
        if (cached.check(users, header) != null) {
            throw new IllegalStateException("setup: credentials refused");
        }
    }

    @Benchmark
    public AuthFailureReason cachedCredentials() {
        return cached.check(users, header);
    }

    @Benchmark
    public AuthFailureReason firstVerificationBcrypt() throws Exception {
        return new BasicAuthGuard(io.tailwatch.core.config.LiveWebConfig.load(file), false).check(users, header);
    }
}
