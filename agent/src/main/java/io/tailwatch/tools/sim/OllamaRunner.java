package io.tailwatch.tools.sim;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The runner child process of the Ollama flavour, as {@code ollama serve} keeps one per loaded model: started on
 * the first request for the model, on a loopback port picked the way Ollama picks it (bind port 0, read the
 * port, close, hand it to the runner), ready once its {@code /health} answers 200, and stopped with the
 * simulator. Its output goes nowhere (Ollama logs it; the simulator has no log to keep).
 */
final class OllamaRunner implements AutoCloseable {
    /** Generation answers are long-lived streams: the sim's own deadline for one (a test tool's bound). */
    static final Duration GENERATION_DEADLINE = Duration.ofMinutes(10);
    private final RunnerSpec spec;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    /** Held while a runner starts, so /api/ps and the figures never wait for a load. */
    private final Object loading = new Object();
    private volatile Process process;
    private volatile int port;
    private volatile boolean closed;

    OllamaRunner(RunnerSpec spec) {
        this.spec = spec;
    }

    RunnerSpec spec() {
        return spec;
    }

    /** Starts the runner when none is alive and waits until it serves; returns the nanoseconds that took (0 when warm). */
    long ensure() throws IOException {
        synchronized (loading) {
            return load();
        }
    }

    private long load() throws IOException {
        if (closed) {
            throw new IOException("simulator closed");
        }
        if (process != null && process.isAlive()) {
            return 0;
        }
        long start = System.nanoTime();
        int p = freePort();
        ProcessBuilder pb = new ProcessBuilder(spec.commandLine(p)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(spec.environment());
        Process child = pb.start();
        long deadline = start + spec.loadTimeout().toNanos();
        while (!healthy(p)) {
            if (!child.isAlive()) {
                throw new IOException("runner exited with " + child.exitValue() + " while loading");
            }
            if (System.nanoTime() > deadline) {
                stop(child);
                throw new IOException("runner not ready within " + spec.loadTimeout().toSeconds() + " s");
            }
            EngineSimulator.sleepUntil(System.nanoTime() + 50_000_000L);
            if (Thread.currentThread().isInterrupted()) {
                stop(child);
                throw new IOException("interrupted while the runner loaded");
            }
        }
        port = p;
        process = child;
        if (closed) {
            stop(child);
            throw new IOException("simulator closed");
        }
        return System.nanoTime() - start;
    }

    /** True while a runner process is alive (the model is loaded). */
    boolean loaded() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** The runner's process id, or -1 while none runs. */
    long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    /** The runner's port, or -1 while none runs. */
    int port() {
        return loaded() ? port : -1;
    }

    /** POSTs {@code body} to the runner's {@code path} and returns the answer as a stream (the caller closes it). */
    HttpResponse<InputStream> post(String path, byte[] body) throws IOException {
        int p = port();
        if (p < 0) {
            throw new IOException("runner not running");
        }
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + path))
                .timeout(GENERATION_DEADLINE).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        try {
            return http.send(r, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private boolean healthy(int p) {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/health"))
                .timeout(Duration.ofSeconds(2)).GET().build();
        try {
            return http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** As Ollama: a port the kernel hands out for 127.0.0.1:0, released for the runner to bind. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    private static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Unloads the model: stops the runner process (a later request starts another). */
    void unload() {
        synchronized (loading) {
            Process p = process;
            if (p != null) {
                stop(p);
            }
        }
    }

    /** Stops the runner (SIGTERM, then SIGKILL after 5 s); no runner starts after this. */
    @Override
    public void close() {
        closed = true;
        Process p = process;
        if (p != null) {
            stop(p);
        }
    }
}
