package io.tailwatch.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A server process of the Prometheus family (Prometheus, Alertmanager) started by a test on 127.0.0.1:port,
 * its output in a log file; ready when {@code /-/ready} answers 200, stopped on close.
 */
abstract class LoopbackDaemon implements AutoCloseable {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final Process process;
    final int port;
    private final Path log;

    LoopbackDaemon(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Waits (at most 30 s) until the server is ready; fails with its log when it exits first. */
    void awaitReady(String name) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited:\n" + log());
            }
            return HTTP.send(HttpRequest.newBuilder(URI.create(url("/-/ready"))).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        });
    }

    public int port() {
        return port;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
