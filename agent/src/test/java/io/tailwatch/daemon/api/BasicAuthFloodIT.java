package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * Ten clients guessing as fast as the agent answers, for 20 scrapes (6 in the gate): five a cost-12 user's password,
 * five random user names (checked against a cost-12 decoy), beside two scrapers of cost-10 users that were never
 * verified before the flood began and a liveness probe, against the real agent with the shipped flags. Every scrape
 * is answered 200 (the flood takes one bcrypt turn in each round, the scrapers theirs) and every /healthz is
 * answered; the guesses beyond their own queues are answered 429.
 * Tagged "alone": the flood keeps both cores busy on purpose and the scrapes' deadlines are asserted, so this class
 * runs after the parallel integration tests, with nothing else beside it.
 */
@Tag("alone")
class BasicAuthFloodIT {
    /** The soak's scrapes under the flood (-Psoak), about one a second; the gate's are {@link #GATE}. */
    private static final int FLOOD = 20;
    private static final int GATE = 6;

    @TempDir
    Path dir;

    private static String basic(String s) {
        return "Basic " + Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String hash(String password, int cost) {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        return org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, cost);
    }

    @Test
    @Tag("soak")
    void everyScrapeOfOtherUsersIsAnsweredWhileTenClientsGuess() throws Exception {
        flood(FLOOD);
    }

    /** The same flood and checks for 6 scrapes, in the default build. */
    @Test
    void everyScrapeOfOtherUsersIsAnsweredWhileTenClientsGuessBriefly() throws Exception {
        flood(GATE);
    }

    private void flood(int scrapesUnderFlood) throws Exception {
        Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n"
                + "  grafana: '" + hash("right-one", 12) + "'\n"
                + "  prometheus: '" + hash("scrape-one", 10) + "'\n"
                + "  backup: '" + hash("scrape-two", 10) + "'\n");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + dir.resolve("web.yml") + "}\n"
                + "host: {interval: 5s}\n");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "-c", config.toString())) {
            agent.awaitListening();
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
                        String who = n % 2 == 0 ? "grafana:guess-" + n + "-" + k : "guess-" + n + "-" + k + ":x";
                        k++;
                        HttpRequest bad = HttpRequest.newBuilder(URI.create(agent.url("/metrics")))
                                .timeout(Duration.ofSeconds(20)).header("Authorization", basic(who)).build();
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
            int scrapes = 0;
            int answered = 0;
            List<Integer> codes = new ArrayList<>();
            List<Long> millis = new ArrayList<>();
            int healthz = 0;
            try {
                // The flood is on before either scraper's password was ever checked.
                await().atMost(Duration.ofSeconds(60)).until(() -> rejectedFast.get() >= 10);
                List<String> scrapers = List.of("prometheus:scrape-one", "backup:scrape-two");
                while (scrapes < scrapesUnderFlood) {
                    HttpRequest good = HttpRequest.newBuilder(URI.create(agent.url("/metrics"))).timeout(Duration.ofSeconds(20))
                            .header("Authorization", basic(scrapers.get(scrapes % 2))).build();
                    scrapes++;
                    long t0 = System.nanoTime();
                    int code = http.send(good, HttpResponse.BodyHandlers.discarding()).statusCode();
                    codes.add(code);
                    millis.add((System.nanoTime() - t0) / 1_000_000);
                    if (code == 200) {
                        answered++;
                    }
                    HttpRequest health = HttpRequest.newBuilder(URI.create(agent.url("/healthz")))
                            .timeout(Duration.ofSeconds(10)).build();
                    assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode()).isIn(200, 503);
                    healthz++;
                    Thread.sleep(1000);
                }
            } finally {
                stop.set(true);
                guessers.shutdownNow();
            }
            System.out.printf("basic auth flood: %d guesses (%d answered 429), %d of %d scrapes answered 200 %s in %s ms, %d /healthz%n",
                    guesses.get(), rejectedFast.get(), answered, scrapes, codes, millis, healthz);
            assertThat(guesses.get()).as("the flood ran throughout").isGreaterThan(scrapes);
            assertThat(answered).as("scrapes of users the flood does not target, answered 200: %s", codes).isEqualTo(scrapes);
            assertThat(healthz).isEqualTo(scrapes);
            assertThat(rejectedFast.get()).as("guesses past their own queues are answered 429").isPositive();
            assertThat(agent.process().isAlive()).isTrue();
        }
    }
}
