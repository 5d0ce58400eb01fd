package io.tailwatch.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.javalin.Javalin;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resident memory of the libraries the agent is built on, each without any agent code: how low
 * the daemon's footprint can go with this stack on this JVM. Run once per part set, each in a JVM of
 * its own started with the daemon's flags (bench/footprint-floor.sh does that):
 * {@code none}, {@code javalin} (one route, served 200 times, with the agent's thread-pool settings),
 * {@code micrometer} (a Prometheus registry with 30 gauges and a timer, scraped 100 times),
 * {@code jackson} (JSON trees read and written, a YAML document read), {@code jdkhttp} (the JDK's
 * own HTTP server with the same route, for comparison), or a {@code +}-joined set.
 * Prints VmRSS after a full GC and {@code idle} seconds of quiet.
 */
public final class FootprintFloor {
    private FootprintFloor() {
    }

    public static void main(String[] args) throws Exception {
        Set<String> parts = Set.of(args.length > 0 ? args[0].split("\\+") : new String[] {"none"});
        int idle = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Javalin app = null;
        if (parts.contains("javalin")) {
            app = Javalin.create(cfg -> {
                io.tailwatch.daemon.api.ApiServer.smallServer(cfg);
                cfg.routes.get("/", ctx -> ctx.result("ok"));
            }).start("127.0.0.1", 0);
            for (int i = 0; i < 200; i++) {
                get(app.port());
            }
        }
        com.sun.net.httpserver.HttpServer jdk = null;
        if (parts.contains("jdkhttp")) {
            // For comparison: the JDK's own small HTTP server, same route, same number of requests.
            jdk = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
            jdk.createContext("/", ex -> {
                byte[] ok = "ok".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, ok.length);
                ex.getResponseBody().write(ok);
                ex.close();
            });
            jdk.start();
            for (int i = 0; i < 200; i++) {
                get(jdk.getAddress().getPort());
            }
        }
        if (parts.contains("micrometer")) {
            PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            for (int i = 0; i < 30; i++) {
                reg.gauge("floor_gauge_" + i, new AtomicInteger(i));
            }
            Timer t = Timer.builder("floor_duration").publishPercentileHistogram().register(reg);
            t.record(Duration.ofMillis(5));
            for (int i = 0; i < 100; i++) {
                reg.scrape();
            }
        }
        if (parts.contains("jackson")) {
            ObjectMapper json = new ObjectMapper();
            for (int i = 0; i < 100; i++) {
                json.readTree("{\"a\":[1,2,{\"b\":\"c\"}],\"n\":" + i + "}");
            }
            json.writeValueAsString(Map.of("x", List.of(1, 2)));
            new ObjectMapper(new YAMLFactory()).readTree("a: 1\nb: [x, y]\n");
        }
        System.gc();
        Thread.sleep(idle * 1000L);
        System.out.println(String.join("+", args.length > 0 ? args[0] : "none") + " " + vmRssKib() + " KiB");
        if (app != null) {
            app.stop();
        }
        if (jdk != null) {
            jdk.stop(0);
        }
        System.exit(0);
    }

    private static void get(int port) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/").openConnection(Proxy.NO_PROXY);
        try (InputStream in = c.getInputStream()) {
            in.readAllBytes();
        }
    }

    private static long vmRssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
