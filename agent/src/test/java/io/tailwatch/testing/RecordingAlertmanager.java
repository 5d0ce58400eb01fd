package io.tailwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.json.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A stand-in for Alertmanager's v2 API on loopback that keeps every POST of alerts and when it came. */
public final class RecordingAlertmanager implements AutoCloseable {
    /** One POST body (a JSON array of alerts) and when it arrived. */
    public record Post(Instant at, JsonNode body) {
        boolean carries(String alertname) {
            for (JsonNode a : body) {
                if (a.path("labels").path("alertname").asText().equals(alertname)) {
                    return true;
                }
            }
            return false;
        }
    }

    private final HttpServer server;
    private final List<Post> posts = new CopyOnWriteArrayList<>();

    private RecordingAlertmanager(HttpServer server) {
        this.server = server;
    }

    public static RecordingAlertmanager start() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        RecordingAlertmanager am = new RecordingAlertmanager(s);
        s.createContext("/api/v2/alerts", ex -> {
            am.posts.add(new Post(Instant.now(), Json.MAPPER.readTree(ex.getRequestBody().readAllBytes())));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        s.start();
        return am;
    }

    /** The base URL to list under {@code alerts.alertmanagers}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** How many POSTs have arrived so far. */
    public int received() {
        return posts.size();
    }

    /** How many POSTs from the {@code from}th on carry {@code alertname}. */
    public long postsWith(String alertname, int from) {
        return posts.subList(from, posts.size()).stream().filter(p -> p.carries(alertname)).count();
    }

    /** Every {@code alertname} ever sent was sent firing: its {@code endsAt} is after the POST's arrival. */
    public void assertNeverResolved(String alertname) {
        for (Post p : posts) {
            for (JsonNode a : p.body()) {
                if (a.path("labels").path("alertname").asText().equals(alertname)) {
                    assertThat(Instant.parse(a.path("endsAt").asText())).as(alertname + " sent as resolved").isAfter(p.at());
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
