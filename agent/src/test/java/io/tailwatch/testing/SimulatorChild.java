package io.tailwatch.testing;

import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A simulator look-alike ({@code SimulatedVllmMlx}, {@code SimulatedMlxLm}, ...) run as a child process from an
 * engine's own command line, so that the process listening on the engine's port carries the arguments a real
 * server's does. The class path goes in the environment: the command line stays short, as a real server's is (the
 * process table reads 4 KiB of it). Started once its {@code /health} answers 200; closing stops it.
 */
public final class SimulatorChild implements AutoCloseable {
    private final Process process;
    private final int port;

    private SimulatorChild(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** A loopback port free a moment ago. */
    public static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs {@code main} with {@code args} (which must make it listen on {@code port}) and waits for its health. */
    public static SimulatorChild start(Class<?> main, int port, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx48m",
                "-XX:TieredStopAtLevel=1", main.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("CLASSPATH", System.getProperty("java.class.path"));
        SimulatorChild child = new SimulatorChild(pb.start(), port);
        try {
            HttpClient http = HttpClient.newHttpClient();
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/health")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
        } catch (RuntimeException | Error e) {
            child.close();
            throw e;
        }
        return child;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
