package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.testing.FullAcceptQueue;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The engine's client connects with the engine's connect_timeout. Against a listener whose accept
 * queue is full (the kernel drops further SYNs, so a connect can only time out), a health check ends
 * after the configured connect deadline: short when it is short, long when it is long.
 */
class EngineConnectTimeoutTest {
    static EngineConfig engine(int port, String connect) throws Exception {
        return Config.parse("""
                engines:
                  - name: e
                    api: ollama
                    url: http://127.0.0.1:%d
                    model: m
                    connect_timeout: %s
                    health: {interval: 10s, timeout: 5s}
                    scenarios:
                      - {name: interactive, interval: 60s, timeouts: {total: 50s}}
                      - {name: long, interval: 5m, timeouts: {total: 240s}}
                """.formatted(port, connect), "t.yaml", Map.of()).engines().get(0);
    }

    /** Seconds a health check takes against a listener that never completes a connection. */
    static double healthSeconds(String connect) throws Exception {
        try (FullAcceptQueue s = new FullAcceptQueue()) {
            EngineWatch w = new EngineWatch(engine(s.port(), connect), new MetricHub(), () -> HostSnapshot.EMPTY,
                    Clock.systemUTC(), 100);
            warmUp();
            long t0 = System.nanoTime();
            w.checkHealth();
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(w.health().up()).isFalse();
            assertThat(w.health().error()).contains("/api/version").containsIgnoringCase("connect");
            return seconds;
        }
    }

    /** One health check against a closed port first, so that the measured one does not pay for class loading. */
    static void warmUp() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        new EngineWatch(engine(closed, "1s"), new MetricHub(), () -> HostSnapshot.EMPTY, Clock.systemUTC(), 100)
                .checkHealth();
    }

    @Test
    void aShortEngineConnectTimeoutEndsTheConnectEarly() throws Exception {
        // well under the 2 s default and the 3 s of the other case: the engine's value is the one used
        assertThat(healthSeconds("300ms")).isBetween(0.25, 1.6);
    }

    @Test
    void aLongEngineConnectTimeoutIsWaitedFor() throws Exception {
        // longer than the 2 s default, shorter than the 5 s health deadline
        assertThat(healthSeconds("3s")).isBetween(2.9, 4.8);
    }
}
