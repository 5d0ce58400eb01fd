package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.PrometheusExporter;
import io.tailwatch.metrics.SelfMetrics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Requests at the edges of the HTTP rules, on the real listener: auth scheme case, absolute-form targets. */
class RequestEdgesTest {
    private static String raw(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            byte[] b = s.getInputStream().readNBytes(4096);
            return new String(b, StandardCharsets.ISO_8859_1);
        }
    }

    private static ApiServer server(String token) {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"));
        hub.publish("build", List.of(SelfMetrics.buildInfo("1.2.3")));
        return new ApiServer(prom, () -> null, List.of(), token, List.of(), () -> "1.2.3");
    }

    @Test
    void theBearerSchemeIsCaseInsensitive() throws Exception {
        try (ApiServer s = server("t0ken-value").start("127.0.0.1", 0)) {
            for (String scheme : List.of("Bearer", "bearer", "BEARER")) {
                assertThat(raw(s.port(), "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + scheme
                        + " t0ken-value\r\nConnection: close\r\n\r\n")).as(scheme).startsWith("HTTP/1.1 200");
            }
            assertThat(raw(s.port(), "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: bearer wrong\r\n"
                    + "Connection: close\r\n\r\n")).startsWith("HTTP/1.1 401");
            assertThat(raw(s.port(), "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic t0ken-value\r\n"
                    + "Connection: close\r\n\r\n")).startsWith("HTTP/1.1 401");
        }
    }

    @Test
    void anAbsoluteFormRequestIsCheckedByTheNameInItsTarget() throws Exception {
        try (ApiServer s = server(null).start("127.0.0.1", 0)) {
            assertThat(raw(s.port(), "GET http://evil.example/metrics HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 421");
            // A Host that disagrees with the target is refused by Jetty itself.
            assertThat(raw(s.port(), "GET http://evil.example/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
                    .startsWith("HTTP/1.1 400");
            assertThat(raw(s.port(), "GET http://127.0.0.1/metrics HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200");
            assertThat(raw(s.port(), "GET /metrics HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200");
        }
    }

    /**
     * The listener has no acceptor thread (its selector accepts, one thread less to wake per new connection),
     * and still answers connections opened one after another.
     */
    @Test
    void thePlainListenerAcceptsOnItsSelector() throws Exception {
        try (ApiServer s = server(null).start("127.0.0.1", 0)) {
            for (int i = 0; i < 5; i++) {
                assertThat(raw(s.port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
                        .startsWith("HTTP/1.1 200");
            }
            String port = ":" + s.port();
            List<String> http = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.startsWith("tailwatch-http")).toList();
            assertThat(http).isNotEmpty();
            // Jetty names an acceptor thread after its connector, whose name ends with its host and port.
            assertThat(http).noneMatch(n -> n.contains("acceptor") && n.contains(port));
        }
    }
}
