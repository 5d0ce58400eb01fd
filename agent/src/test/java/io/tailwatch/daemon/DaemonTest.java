package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The daemon in-process, with samplers under the test's control. */
class DaemonTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> get(Daemon d, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static Config config(String interval, String timeout) throws Exception {
        return Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: " + interval + "\n  timeout: " + timeout
                + "\nengines: []\n", "test", Map.of());
    }

    @Test
    void theLandingPageListsEveryRouteTheDaemonServesEachDescribed() throws Exception {
        // An engine with a restart token, so that the runbook restart route is registered too.
        Config c = Config.parse("server:\n  listen: 127.0.0.1:0\n  auth_token: ${T}\nengines:\n  - name: e\n    api: openai\n"
                + "    url: http://127.0.0.1:9\n    launchd_label: io.example.e\n", "test", Map.of("T", "s3cret-token-value"));
        try (Daemon d = new Daemon(c, Map.of(), List.of()).start()) {
            String page = get(d, "/").body();
            assertThat(page).doesNotContain(io.tailwatch.daemon.api.ApiServer.UNDESCRIBED);
            for (String path : io.tailwatch.daemon.api.ApiServer.ENDPOINTS.keySet()) {
                assertThat(page).as(path).contains("<code>" + path.replace("{", "&#123;").replace("}", "&#125;") + "</code>");
            }
        }
    }

    @Test
    void histogramSeriesOutliveTwoOfTheLongestProbeWindows() throws Exception {
        // Shipped rules at the default 60 s interval: the default window is 22 minutes (20 probes for
        // TailLatencySpread plus 10 % lateness, rounded up to whole minutes), so series live 44 minutes.
        assertThat(Daemon.seriesExpiry(Config.parse("engines: []\n", "test", Map.of())))
                .isEqualTo(Duration.ofMinutes(44));
        // A scenario with a one-hour window keeps its series for two hours.
        Config longWindow = Config.parse("""
                engines:
                  - name: e
                    api: openai
                    url: http://127.0.0.1:9
                    scenarios:
                      - name: slow
                        interval: 60s
                        window: 60m
                """, "test", Map.of());
        assertThat(Daemon.seriesExpiry(longWindow)).isEqualTo(Duration.ofHours(2));
    }

    @Test
    void aSlowSamplerNeverBlocksAScrape() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean entered = new AtomicBoolean();
        Sampler fast = new Sampler() {
            public String name() {
                return "memory";
            }

            public List<Point> sample() {
                return List.of(Point.of(HostMetrics.MEMORY_LIMIT, 42));
            }
        };
        Sampler slow = new Sampler() {
            public String name() {
                return "slow";
            }

            public List<Point> sample() throws Exception {
                entered.set(true);
                release.await();
                return List.of();
            }
        };
        try (Daemon d = new Daemon(config("10s", "10s"), Map.of(), List.of(fast, slow)).start()) {
            await().atMost(Duration.ofSeconds(10)).untilTrue(entered);
            // The slow sampler is still blocked here; the scrape answers from the last published state.
            HttpResponse<String> r = get(d, "/metrics");
            assertThat(release.getCount()).isEqualTo(1);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("system_memory_limit_bytes 42.0");
            release.countDown();
        }
    }

    @Test
    void healthzTurns503WithTheReasonWhenTheLoopStops() throws Exception {
        Sampler quiet = new Sampler() {
            public String name() {
                return "quiet";
            }

            public List<Point> sample() {
                return List.of();
            }
        };
        try (Daemon d = new Daemon(config("200ms", "200ms"), Map.of(), List.of(quiet)).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> get(d, "/healthz").statusCode() == 200);
            // Stop the loop, as a wedged sampling thread would: after 3 intervals health must say so.
            d.host().close();
            await().atMost(Duration.ofSeconds(10)).until(() -> get(d, "/healthz").statusCode() == 503);
            assertThat(get(d, "/healthz").body()).startsWith("last host sample completed").contains("interval");
        }
    }
}
