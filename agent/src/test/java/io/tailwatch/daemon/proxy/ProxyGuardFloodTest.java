package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.metrics.MetricHub;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard of an exposed proxy under a guessing flood, on a real Jetty server on loopback with the proxy's handler:
 * a guess that needs a bcrypt while every check is busy is answered 429 with Retry-After, never a 500.
 */
class ProxyGuardFloodTest {
    @TempDir
    Path dir;

    @Test
    void guessesBeyondTheBcryptChecksRunningAre429WithRetryAfterNever500() throws Exception {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        String hash = org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2y", "right-one".toCharArray(), salt, 12);
        Path web = dir.resolve("web.yml");
        Files.writeString(web, "basic_auth_users:\n  client: '" + hash + "'\n");
        ProxyMeter meter = new ProxyMeter("guarded", new MetricHub());
        // The engine is never reached: every request is a wrong guess.
        MeteringProxyHandler handler = new MeteringProxyHandler(
                () -> new MeteringProxyHandler.Upstream(URI.create("http://127.0.0.1:9"), null, 1000, 0),
                meter, () -> Lanes.NONE, new ProxyGuard(LiveWebConfig.load(web)), () -> new ApiServer.HostCheck(List.of()),
                null, new MeteringProxyHandler.Limits(8, 10_000, 10_000, 16 * 1024));
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(handler);
        server.start();
        ExecutorService guessers = Executors.newFixedThreadPool(6);
        AtomicBoolean stop = new AtomicBoolean();
        Set<Integer> statuses = ConcurrentHashMap.newKeySet();
        Set<String> retryAfter = ConcurrentHashMap.newKeySet();
        try {
            URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/v1/models");
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int n = i;
                running.add(guessers.submit(() -> {
                    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                    for (int k = 0; !stop.get(); k++) {
                        String creds = Base64.getEncoder().encodeToString(("client:guess-" + n + "-" + k)
                                .getBytes(StandardCharsets.UTF_8));
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                                .header("Authorization", "Basic " + creds).build(), HttpResponse.BodyHandlers.ofString());
                        statuses.add(r.statusCode());
                        if (r.statusCode() == 429) {
                            retryAfter.add(r.headers().firstValue("Retry-After").orElse(""));
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> statuses.contains(429) && statuses.contains(401));
            stop.set(true);
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            stop.set(true);
            guessers.shutdownNow();
            server.stop();
        }
        assertThat(statuses).containsOnly(401, 429);
        assertThat(retryAfter).containsExactly("1");
    }
}
