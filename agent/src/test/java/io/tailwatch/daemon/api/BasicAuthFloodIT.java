package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
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
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ten clients guessing a cost-14 user's password as fast as the agent answers, for 20 s (6 s in the gate), beside a
 * scraper with the right password (verified once before) and a liveness probe, against the real
 * agent with the shipped flags: every scrape and every /healthz is answered, each well within 2 s.
 */
class BasicAuthFloodIT {
    /** The soak's flood (-Psoak); the gate floods for {@link #GATE} with the same checks. */
    private static final Duration FLOOD = Duration.ofSeconds(20);
    private static final Duration GATE = Duration.ofSeconds(6);

    @TempDir
    Path dir;

    private static String basic(String s) {
        return "Basic " + Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @Tag("soak")
    void scrapesAndHealthzAnswerWhileTenClientsGuess() throws Exception {
        flood(FLOOD);
    }

    /** The same flood and checks for 6 s, in the default build. */
    @Test
    void scrapesAndHealthzAnswerWhileTenClientsGuessBriefly() throws Exception {
        flood(GATE);
    }

    private void flood(Duration run) throws Exception {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        String hash = org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2y", "right-one".toCharArray(), salt, 14);
        Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  prometheus: '" + hash + "'\n");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + dir.resolve("web.yml") + "}\n"
                + "host: {interval: 5s}\n");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "-c", config.toString())) {
            agent.awaitListening();
            HttpRequest good = HttpRequest.newBuilder(URI.create(agent.url("/metrics"))).timeout(Duration.ofSeconds(10))
                    .header("Authorization", basic("prometheus:right-one")).build();
            // The first check is one cost-14 bcrypt in a fresh JVM: seconds on a busy machine (not what is measured).
            HttpRequest first = HttpRequest.newBuilder(good, (k, v) -> true).timeout(Duration.ofSeconds(60)).build();
            assertThat(http.send(first, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong guesses = new AtomicLong();
            AtomicLong rejectedFast = new AtomicLong();
            ExecutorService guessers = Executors.newFixedThreadPool(10);
            for (int i = 0; i < 10; i++) {
                int n = i;
                guessers.submit(() -> {
                    HttpClient own = HttpClient.newHttpClient();
                    long k = 0;
                    while (!stop.get()) {
                        HttpRequest bad = HttpRequest.newBuilder(URI.create(agent.url("/metrics")))
                                .timeout(Duration.ofSeconds(10))
                                .header("Authorization", basic("prometheus:guess-" + n + "-" + k++)).build();
                        try {
                            int code = own.send(bad, HttpResponse.BodyHandlers.discarding()).statusCode();
                            guesses.incrementAndGet();
                            if (code == 429) {
                                rejectedFast.incrementAndGet();
                            }
                        } catch (Exception e) {
                            // a refused or timed-out guess counts for nothing
                        }
                    }
                    return null;
                });
            }
            List<Long> scrapeMillis = new ArrayList<>();
            List<Long> healthMillis = new ArrayList<>();
            long end = System.nanoTime() + run.toNanos();
            try {
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    assertThat(http.send(good, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
                    scrapeMillis.add((System.nanoTime() - t0) / 1_000_000);
                    t0 = System.nanoTime();
                    HttpRequest health = HttpRequest.newBuilder(URI.create(agent.url("/healthz")))
                            .timeout(Duration.ofSeconds(10)).build();
                    assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode()).isIn(200, 503);
                    healthMillis.add((System.nanoTime() - t0) / 1_000_000);
                    Thread.sleep(1000);
                }
            } finally {
                stop.set(true);
                guessers.shutdownNow();
            }
            System.out.printf("basic auth flood: %d guesses (%d answered 429), scrapes %s ms, /healthz %s ms%n",
                    guesses.get(), rejectedFast.get(), scrapeMillis, healthMillis);
            // A scrape about every second: at least half as many as seconds flooded (10 in the 20 s soak).
            assertThat(scrapeMillis).hasSizeGreaterThanOrEqualTo((int) run.toSeconds() / 2).allSatisfy(ms -> assertThat(ms).isLessThan(2000));
            assertThat(healthMillis).allSatisfy(ms -> assertThat(ms).isLessThan(2000));
            assertThat(rejectedFast.get()).as("guesses past the bcrypt bound are answered 429").isPositive();
            assertThat(agent.process().isAlive()).isTrue();
        }
    }
}
