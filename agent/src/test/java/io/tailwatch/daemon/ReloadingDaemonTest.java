package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A reload keeps the running config on any problem, swaps in a valid one, and falls back when it cannot start. */
class ReloadingDaemonTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static Config config(String token) throws Exception {
        return Config.parse("server:\n  listen: 127.0.0.1:0\n  auth_token: " + token + "\nhost:\n  interval: 10s\n"
                + "  timeout: 2s\nengines: []\n", "test", Map.of());
    }

    /** The HTTP status of /api/v1/status with {@code token} on the running daemon. */
    static int status(int port, String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/status"))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** A daemon without host samplers: the reload logic is what is tested, on real daemons. */
    static Daemon plain(Config c) {
        return new Daemon(c, Map.of(), List.of());
    }

    @Test
    void problems_keep_the_running_config_and_a_valid_config_replaces_it() throws Exception {
        Config first = config("first-token-123");
        Config second = config("second-token-456");
        AtomicReference<Object> next = new AtomicReference<>();
        AtomicBoolean gaveUp = new AtomicBoolean();
        try (ReloadingDaemon d = ReloadingDaemon.start(first, () -> {
            Object n = next.get();
            if (n instanceof ReloadingDaemon.Refused r) {
                throw r;
            }
            if (n instanceof RuntimeException e) {
                throw e;
            }
            if (n instanceof String yaml) {
                return Config.parse(yaml, "test", Map.of());
            }
            return (Config) n;
        }, "test", Map.of(), ReloadingDaemonTest::plain, () -> gaveUp.set(true))) {
            int port = d.port();
            assertThat(status(port, "first-token-123")).isEqualTo(200);

            next.set("server:\n  colour: blue\n"); // an invalid config
            d.reload();
            next.set(new ReloadingDaemon.Refused("--web-config-file: missing"));
            d.reload();
            next.set(new IllegalArgumentException("unreadable"));
            d.reload();
            assertThat(d.running()).isSameAs(first);
            assertThat(d.port()).isEqualTo(port);
            assertThat(status(port, "first-token-123")).isEqualTo(200);

            next.set(second);
            d.reload();
            assertThat(d.running()).isSameAs(second);
            assertThat(status(d.port(), "second-token-456")).isEqualTo(200);
            assertThat(status(d.port(), "first-token-123")).isEqualTo(401);
            assertThat(gaveUp).isFalse();
        }
    }

    @Test
    void a_config_that_cannot_start_brings_the_previous_one_back_and_two_failures_give_up() throws Exception {
        Config first = config("first-token-123");
        Config broken = config("broken-token-456");
        AtomicBoolean previousFails = new AtomicBoolean();
        AtomicBoolean gaveUp = new AtomicBoolean();
        try (ReloadingDaemon d = ReloadingDaemon.start(first, () -> broken, "test", Map.of(), c -> {
            if (c == broken || previousFails.get()) {
                throw new IllegalStateException("cannot start");
            }
            return plain(c);
        }, () -> gaveUp.set(true))) {
            d.reload();
            assertThat(d.running()).isSameAs(first);
            assertThat(gaveUp).isFalse();
            // the previous config runs again, on a daemon of its own
            assertThat(status(d.port(), "first-token-123")).isEqualTo(200);

            previousFails.set(true);
            d.reload();
            assertThat(gaveUp).isTrue();
            d.reload(); // after giving up, a reload does nothing
            assertThat(d.running()).isSameAs(first);
        }
    }
}
