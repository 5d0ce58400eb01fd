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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the real shaded jar as a child process, as a user would. */
public final class AgentProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private int port = -1;

    private AgentProcess(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    public static Path jar() {
        String jar = System.getProperty("tailwatch.jar");
        if (jar == null) {
            throw new IllegalStateException("system property tailwatch.jar is not set (run through mvn verify)");
        }
        return Path.of(jar);
    }

    public static Path root() {
        return Path.of(System.getProperty("tailwatch.root", ".."));
    }

    /** Starts `java -jar tailwatch.jar ARGS` with extra environment variables. */
    public static AgentProcess start(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.add("-Xmx64m");
        cmd.addAll(fastStart());
        cmd.add("-jar");
        cmd.add(jar().toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_"));
        pb.environment().putAll(env);
        return launch(pb);
    }

    /** Starts {@code pb} with its standard output and error each in a temporary log file. */
    private static AgentProcess launch(ProcessBuilder pb) throws IOException {
        Path out = Files.createTempFile("tailwatch-out", ".log");
        Path err = Files.createTempFile("tailwatch-err", ".log");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        return new AgentProcess(pb.start(), out, err);
    }

    /**
     * Starts the agent through the release launcher ({@code bin/tailwatch}) laid out as in the bundle
     * (bin/, lib/tailwatch.jar, launchd/jvm.options and jvm-proxy.options), so the JVM runs with exactly the shipped flags
     * (24 MiB heap, exit on out-of-memory, ...). The launcher execs java, so the process is the JVM.
     */
    public static AgentProcess startShipped(Path dir, Map<String, String> env, String... args) throws IOException {
        Path launcher = shippedLauncher(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add("/bin/sh");
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_") || k.equals("TAILWATCH_JAVA_OPTS"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        return launch(pb);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> fastStartFlags;

    /**
     * JVM flags that make the many short-lived children of the end-to-end tests start about twice as
     * fast: C1 only (no C2 compile threads competing for the two cores), and an application class-data
     * archive of this jar, made once per test JVM by one child run. Children started through the release
     * launcher ({@link #startShipped}) keep exactly the shipped flags. A JVM that cannot make the archive
     * just runs without it.
     */
    public static synchronized List<String> fastStart() {
        if (fastStartFlags != null) {
            return fastStartFlags;
        }
        List<String> flags = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
        try {
            Path jar = jar().toAbsolutePath();
            Path archive = jar.resolveSibling("it-classes-" + Files.size(jar) + "-"
                    + Files.getLastModifiedTime(jar).toMillis() + ".jsa");
            if (!Files.isRegularFile(archive)) {
                // Test JVMs run side by side: each makes its own temporary archive, and the first to finish puts it in place.
                Path tmp = jar.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
                Files.deleteIfExists(tmp);
                Process p = new ProcessBuilder(java(), "-Xmx64m", "-XX:TieredStopAtLevel=1",
                        "-XX:ArchiveClassesAtExit=" + tmp, "-jar", jar.toString(), "metrics")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.isRegularFile(tmp)) {
                    Files.move(tmp, archive, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } else {
                    p.destroyForcibly();
                    Files.deleteIfExists(tmp);
                }
            }
            if (Files.isRegularFile(archive)) {
                flags.add("-XX:SharedArchiveFile=" + archive);
            }
        } catch (IOException e) {
            // no archive: the children start without one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        fastStartFlags = List.copyOf(flags);
        return fastStartFlags;
    }

    /** Runs a command to completion (bounded) and returns its exit code. */
    public static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        try (AgentProcess p = start(env, args)) {
            if (!p.process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("command did not finish in 60 s: " + List.of(args));
            }
            return new Result(p.process.exitValue(), p.stdout(), p.stderr());
        }
    }

    public record Result(int exitCode, String stdout, String stderr) {
    }

    /** Waits for the "listening on" log line (at most 90 s: a JVM starts slowly on a loaded 2-core machine) and returns the bound port. */
    public int awaitListening() {
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("agent exited with " + process.exitValue() + ":\n" + stderr());
            }
            Matcher m = LISTENING.matcher(stderr() + stdout());
            if (m.find()) {
                port = Integer.parseInt(m.group(2));
                return true;
            }
            return false;
        });
        return port;
    }

    public int port() {
        return port;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of one series (name and labels as exposed) on the agent's /metrics now, or NaN when it is absent. */
    public double series(String series) throws IOException, InterruptedException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^" + java.util.regex.Pattern.quote(series) + " (\\S+)$",
                java.util.regex.Pattern.MULTILINE).matcher(get("/metrics").body());
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    public String stdout() {
        try {
            return Files.readString(stdout);
        } catch (IOException e) {
            return "";
        }
    }

    public String stderr() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "";
        }
    }

    public Process process() {
        return process;
    }

    /** Sends SIGTERM and waits for the exit; returns the exit code. */
    public int terminate(Duration within) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("agent did not stop within " + within);
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Lays out the release bundle under {@code dir}/bundle (bin/tailwatch, lib/tailwatch.jar, launchd/jvm.options and
     * jvm-proxy.options),
     * for a test that runs the launcher itself (in a shell script, say), and returns the launcher's path.
     */
    public static Path shippedLauncher(Path dir) throws IOException {
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        for (String d : List.of("bin", "lib", "launchd")) {
            Files.createDirectories(bundle.resolve(d));
        }
        Path launcher = bundle.resolve("bin/tailwatch");
        Files.copy(root().resolve("agent/src/assembly/bin/tailwatch"), launcher,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        launcher.toFile().setExecutable(true);
        for (String options : List.of("launchd/jvm.options", "launchd/jvm-proxy.options")) {
            Files.copy(root().resolve(options), bundle.resolve(options), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Path jar = bundle.resolve("lib/tailwatch.jar");
        Files.deleteIfExists(jar);
        Files.createSymbolicLink(jar, jar().toAbsolutePath());
        return launcher;
    }
}
