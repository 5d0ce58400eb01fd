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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real llama.cpp {@code llama-server} (Debian's packages, unpacked by scripts/llama-root.sh) serving the
 * {@link TinyGguf} model on an ephemeral loopback port with one thread.
 *
 * <pre>
 * try (LlamaServer llama = LlamaServer.start("--parallel", "4", "--metrics", "--slots")) {
 *     URI base = llama.url(); // http://127.0.0.1:PORT
 * }
 * </pre>
 *
 * <p>The binary is {@code TAILWATCH_LLAMA_SERVER}, else the root scripts/llama-root.sh built last in the
 * cache. Without either the test is skipped, unless {@code TAILWATCH_REQUIRE_LLAMA=1} (CI), where it fails.
 */
public final class LlamaServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final Path log;
    private final int port;

    private LlamaServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** The wrapper that runs llama-server from the private root; skips or fails the test when there is none. */
    public static Path binary() {
        return DebianRoot.wrapper("TAILWATCH_LLAMA_SERVER", "LLAMA", "llama", "run-llama-server");
    }

    /** The model every server here serves (written once, cached). */
    public static Path model() throws IOException {
        return TinyGguf.cached(TinyGguf.Shape.DEFAULT);
    }

    /**
     * Starts llama-server with the tiny model, {@code --threads 1}, a 4096-token context, on
     * 127.0.0.1 and a port of its own choosing, plus {@code args} (e.g. --parallel 4, --api-key K,
     * --metrics, --slots); waits (at most 60 s) until /health answers 200.
     */
    public static LlamaServer start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-m", model().toString(),
                "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--threads-batch", "1",
                "-c", "4096", "--no-webui"));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile("llama-server", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int[] port = {-1};
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!p.isAlive()) {
                    throw new AssertionError("llama-server exited with " + p.exitValue() + ":\n" + Files.readString(log));
                }
                if (port[0] < 0) {
                    Matcher m = LISTENING.matcher(Files.readString(log));
                    if (!m.find()) {
                        return false;
                    }
                    port[0] = Integer.parseInt(m.group(1));
                }
                return health(port[0]) == 200;
            });
        } catch (RuntimeException | Error e) {
            stop(p);
            throw e;
        }
        return new LlamaServer(p, log, port[0]);
    }

    private static int health(int port) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public long pid() {
        return process.pid();
    }

    /** The server's output so far (for assertion messages). */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** GET {@code path} (10 s deadline), with header name/value pairs. */
    public HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(url().resolve(path)).timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM, then SIGKILL after 10 s; removes the log. */
    @Override
    public void close() {
        stop(process);
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a temp file left behind
        }
    }
}
