package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
    void a_listener_that_cannot_start_on_a_new_address_keeps_the_running_one_and_its_config() throws Exception {
        Config first = config("first-token-123");
        AtomicBoolean gaveUp = new AtomicBoolean();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Config busy = Config.parse("server:\n  listen: 127.0.0.1:" + taken.getLocalPort() + "\n  auth_token: other-token-789\n"
                    + "host:\n  interval: 10s\n  timeout: 2s\nengines: []\n", "test", Map.of());
            try (ReloadingDaemon d = ReloadingDaemon.start(first, () -> busy, "test", Map.of(), ReloadingDaemonTest::plain,
                    () -> gaveUp.set(true))) {
                Daemon daemon = d.daemon();
                int port = d.port();
                d.reload();
                // The running listener was never closed: same daemon, same port, same token, same config.
                assertThat(d.running()).isSameAs(first);
                assertThat(d.daemon()).isSameAs(daemon);
                assertThat(d.port()).isEqualTo(port);
                assertThat(status(port, "first-token-123")).isEqualTo(200);
                assertThat(status(port, "other-token-789")).isEqualTo(401);
                assertThat(gaveUp).isFalse();
            }
        }
    }

    /** An answer on a connection that stays open: the status line, the body read by its Content-Length. */
    private static String keptAliveGet(Socket s, String path) throws Exception {
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        java.io.InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new java.io.EOFException("connection closed after: " + head);
            }
            head.append((char) c);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        assertThat(m.find()).as(head.toString()).isTrue();
        in.readNBytes(Integer.parseInt(m.group(1)));
        return head.substring(0, head.indexOf("\r\n"));
    }

    private static Config withEngine(int enginePort, String extraRules) throws Exception {
        return Config.parse("""
                server:
                  listen: 127.0.0.1:0
                host:
                  interval: 1s
                  timeout: 900ms
                engines:
                  - name: sim
                    api: openai
                    url: http://127.0.0.1:%d
                    health: {interval: 1s}
                    scenarios: [{name: interactive, interval: 1h}]
                rules:
                  EngineDown: {for: 0s}
                %s""".formatted(enginePort, extraRules), "test", Map.of());
    }

    private static io.tailwatch.daemon.alerts.Alert alert(ReloadingDaemon d, String name) {
        return d.daemon().rules().alerts().stream().filter(a -> a.name().equals(name)).findFirst().orElse(null);
    }

    @Test
    void a_reload_keeps_the_listener_the_alerts_the_engines_and_the_history_and_a_dead_engine_resolves_later() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai");
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o);
        int enginePort = sim.port();
        Config first = withEngine(enginePort, "");
        AtomicReference<Config> next = new AtomicReference<>(first);
        List<io.tailwatch.daemon.alerts.Transition> transitions = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ReloadingDaemon d = ReloadingDaemon.start(first, next::get, "test", Map.of(), ReloadingDaemonTest::plain, () -> { })) {
            Daemon daemon = d.daemon();
            await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(daemon.engines().watch("sim").state()));
            sim.close();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                var a = alert(d, "EngineDown");
                return a != null && a.state() == AlertState.FIRING;
            });
            Instant firedAt = alert(d, "EngineDown").firedAt();
            var watch = daemon.engines().watch("sim");
            var history = daemon.history();
            int port = d.port();
            try (Socket kept = new Socket(InetAddress.getLoopbackAddress(), port)) {
                kept.setSoTimeout(10_000);
                assertThat(keptAliveGet(kept, "/healthz")).contains(" 200 ");
                for (int i = 0; i < 5; i++) {
                    d.reload(); // the same config
                }
                assertThat(keptAliveGet(kept, "/healthz")).as("the connection made before the reloads").contains(" 200 ");
            }
            assertThat(d.daemon()).isSameAs(daemon);
            assertThat(d.port()).isEqualTo(port);
            assertThat(daemon.engines().watch("sim")).isSameAs(watch);
            assertThat(watch.reached()).isTrue();
            assertThat(daemon.history()).isSameAs(history);
            var a = alert(d, "EngineDown");
            assertThat(a.state()).isEqualTo(AlertState.FIRING);
            assertThat(a.firedAt()).isEqualTo(firedAt);

            // A changed rule: the evaluator is rebuilt and takes the firing instance over; the engine stays.
            Config changed = withEngine(enginePort, "  SwapUsedHigh: {threshold: 2GiB, for: 2m}\n");
            next.set(changed);
            d.reload();
            assertThat(d.running()).isSameAs(changed);
            assertThat(d.daemon()).isSameAs(daemon);
            assertThat(daemon.engines().watch("sim")).isSameAs(watch);
            assertThat(alert(d, "EngineDown").state()).isEqualTo(AlertState.FIRING);
            assertThat(alert(d, "EngineDown").firedAt()).isEqualTo(firedAt);
            d.daemon().rules().addListener(transitions::add);

            // The engine comes back: the alert kept across the reloads resolves.
            sim = EngineSimulator.start("openai", "127.0.0.1", enginePort, o);
            await().atMost(Duration.ofSeconds(20)).until(() -> transitions.stream()
                    .anyMatch(t -> t.alert().name().equals("EngineDown") && t.to() == AlertState.RESOLVED));
        } finally {
            sim.close();
        }
    }

    @Test
    void an_engine_the_reload_leaves_out_is_no_longer_watched_and_its_alert_resolves() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        SimulatorOptions o = SimulatorOptions.defaults("openai");
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o)) {
            Config first = withEngine(sim.port(), "");
            AtomicReference<Config> next = new AtomicReference<>(first);
            List<io.tailwatch.daemon.alerts.Transition> transitions = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (ReloadingDaemon d = ReloadingDaemon.start(first, next::get, "test", Map.of(), ReloadingDaemonTest::plain, () -> { })) {
                Daemon daemon = d.daemon();
                daemon.rules().addListener(transitions::add);
                await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(daemon.engines().watch("sim").state()));
                sim.close();
                await().atMost(Duration.ofSeconds(20)).until(() -> alert(d, "EngineDown") != null
                        && alert(d, "EngineDown").state() == AlertState.FIRING);
                // Another engine instead of "sim": sim's series leave, EngineDown resolves.
                next.set(Config.parse("""
                        server: {listen: 127.0.0.1:0}
                        host: {interval: 1s, timeout: 900ms}
                        engines:
                          - name: other
                            api: openai
                            url: http://127.0.0.1:%d
                        rules:
                          EngineDown: {for: 0s}
                        """.formatted(dead), "test", Map.of()));
                d.reload();
                assertThat(daemon.engines().watch("sim")).isNull();
                assertThat(daemon.engines().watch("other")).isNotNull();
                await().atMost(Duration.ofSeconds(20)).until(() -> transitions.stream()
                        .anyMatch(t -> t.alert().name().equals("EngineDown") && t.to() == AlertState.RESOLVED));
                assertThat(daemon.hub().snapshot().value(io.tailwatch.metrics.EngineMetrics.UP,
                        io.tailwatch.metrics.AttrKeys.ENGINE, "sim")).isNull();
            }
        }
    }
}
