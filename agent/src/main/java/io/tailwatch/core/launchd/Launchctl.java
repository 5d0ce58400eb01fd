package io.tailwatch.core.launchd;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code launchctl} found on PATH with a deadline and captures its combined output
 * (bounded). Only the current verbs are used: bootstrap, bootout, print, kickstart.
 */
public final class Launchctl {
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(15);
    static final int MAX_OUTPUT = 64 * 1024;

    private final Map<String, String> env;
    private final Duration deadline;

    public Launchctl(Map<String, String> env, Duration deadline) {
        this.env = Map.copyOf(env);
        this.deadline = deadline;
    }

    public Launchctl(Map<String, String> env) {
        this(env, DEFAULT_DEADLINE);
    }

    /** What one launchctl run did. {@code exitCode} is -1 when the deadline passed. */
    public record Result(List<String> command, int exitCode, String output) {
        public boolean ok() {
            return exitCode == 0;
        }

        public String commandLine() {
            return String.join(" ", command);
        }
    }

    /** launchctl is missing (not macOS, or PATH without /bin). */
    public static final class NotFound extends Exception {
        NotFound(String path) {
            super("launchctl not found on PATH (" + path + "); launchd services exist on macOS only");
        }
    }

    /** The launchctl executable on PATH. */
    public Path executable() throws NotFound {
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "launchctl");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        throw new NotFound(path);
    }

    public Result bootstrap(String domain, Path plist) throws NotFound, IOException {
        return run("bootstrap", domain, plist.toString());
    }

    public Result bootout(String target) throws NotFound, IOException {
        return run("bootout", target);
    }

    public Result print(String target) throws NotFound, IOException {
        return run("print", target);
    }

    /** Kills the running instance (-k) and starts it again. */
    public Result kickstart(String target) throws NotFound, IOException {
        return run("kickstart", "-k", target);
    }

    public Result run(String... args) throws NotFound, IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(executable().toString());
        cmd.addAll(List.of(args));
        List<String> shown = new ArrayList<>(List.of(args));
        shown.add(0, "launchctl");
        Path out = Files.createTempFile("tailwatch-launchctl", ".out");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
            pb.environment().clear();
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean done;
            try {
                done = p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + String.join(" ", shown));
            }
            if (!done) {
                p.destroyForcibly();
                return new Result(shown, -1, "launchctl did not finish within " + deadline.toMillis() + " ms\n");
            }
            return new Result(shown, p.exitValue(), readBounded(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static File nullDevice() {
        return new File(File.separatorChar == '\\' ? "NUL" : "/dev/null");
    }

    private static String readBounded(Path file) throws IOException {
        byte[] b;
        try (var in = Files.newInputStream(file)) {
            b = in.readNBytes(MAX_OUTPUT + 1);
        }
        if (b.length <= MAX_OUTPUT) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return new String(b, 0, MAX_OUTPUT, StandardCharsets.UTF_8) + "\n[output cut at " + MAX_OUTPUT + " bytes]\n";
    }
}
