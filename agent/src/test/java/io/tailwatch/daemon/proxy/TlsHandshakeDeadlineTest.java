package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.daemon.api.TlsListener;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.testing.RecordingEngine;
import io.tailwatch.testing.TestCerts;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS form of the head deadline: on a TLS listener built as an exposed proxy's is (the web config's TLS
 * connector, a connection limit, the head deadline, the proxy's handler), as many connections as the limit
 * allows each send three bytes of a ClientHello and nothing more. They are closed at the deadline, however long
 * the idle timeout, and a real client that finds every connection taken is served once they are. (The proxy serves
 * TLS only off loopback, which the tests never bind, so its parts are put together here on 127.0.0.1.)
 */
class TlsHandshakeDeadlineTest {
    @TempDir
    Path dir;

    @Test
    void stalledClientHellosAreClosedAtTheDeadlineAndARealClientGetsItsAnswer() throws Exception {
        TestCerts.ca(dir, "ca");
        TestCerts.leaf(dir, "ca", "proxy", "ec");
        Path web = dir.resolve("web.yml");
        Files.writeString(web, "tls_server_config: {cert_file: " + dir.resolve("proxy.crt") + ", key_file: "
                + dir.resolve("proxy.key") + "}\n");
        int limit = 4;
        try (RecordingEngine engine = RecordingEngine.start()) {
            QueuedThreadPool pool = new QueuedThreadPool(16, 2, 30_000);
            pool.setDaemon(true);
            Server server = new Server(pool);
            HttpConfiguration http = new HttpConfiguration();
            http.setIdleTimeout(300_000);
            ServerConnector connector = TlsListener.connector(server, http, LiveWebConfig.load(web));
            connector.setHost("127.0.0.1");
            connector.setIdleTimeout(300_000);
            server.addConnector(connector);
            server.addBean(new NetworkConnectionLimit(limit, server));
            HeadDeadline heads = new HeadDeadline(server.getScheduler(), 1_000);
            connector.addEventListener(heads);
            server.setHandler(new MeteringProxyHandler(
                    () -> new MeteringProxyHandler.Upstream(URI.create("http://127.0.0.1:" + engine.port()), null, 2000, 0),
                    new ProxyMeter("tls", new MetricHub()), () -> Lanes.NONE, null,
                    () -> new ApiServer.HostCheck(List.of()), heads,
                    new MeteringProxyHandler.Limits(limit, 300_000, 30_000, 16 * 1024)));
            server.start();
            List<Socket> stalled = new ArrayList<>();
            try {
                int port = connector.getLocalPort();
                for (int i = 0; i < limit; i++) {
                    Socket s = new Socket("127.0.0.1", port);
                    s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01});
                    s.getOutputStream().flush();
                    stalled.add(s);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> connector.getConnectedEndPoints().size() == limit);

                HttpClient client = HttpClient.newBuilder().sslContext(trusting(dir.resolve("ca.crt")))
                        .connectTimeout(Duration.ofSeconds(20)).build();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/json"))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);

                for (Socket s : stalled) {
                    s.setSoTimeout(10_000);
                    InputStream in = s.getInputStream();
                    assertThat(drain(in)).as("the stalled handshake was closed by the proxy, not timed out here").isTrue();
                }
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
                server.stop();
            }
        }
    }

    /** Reads to the end; true when the peer closed (end of stream or reset), false on this side's read timeout. */
    private static boolean drain(InputStream in) {
        try {
            while (in.read() >= 0) {
                // an alert record may come before the close
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.io.IOException e) {
            return true;
        }
    }

    private static SSLContext trusting(Path caPem) throws Exception {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}
