package io.tailwatch.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs Debian's promtool; skips the test when it is missing unless TAILWATCH_REQUIRE_PROMTOOL=1 (CI).
 * {@link #run3} runs Prometheus 3's promtool, beside {@link PrometheusServer#binary3()} in its private root.
 */
public final class Promtool {
    private Promtool() {
    }

    public static String path() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, "promtool");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
            throw new AssertionError("promtool is required (TAILWATCH_REQUIRE_PROMTOOL=1) but not on PATH");
        }
        assumeTrue(false, "promtool not installed (apt-get install prometheus)");
        return null;
    }

    public record Result(int exitCode, String output) {
    }

    /** Runs promtool with the given arguments, feeding {@code stdin} if not null. */
    public static Result run(String stdin, String... args) throws IOException, InterruptedException {
        return run(path(), stdin, args);
    }

    /** Runs Prometheus 3's promtool (scripts/prometheus-root.sh) with the given arguments. */
    public static Result run3(String... args) throws IOException, InterruptedException {
        return run(Path.of(PrometheusServer.binary3()).resolveSibling("run-promtool").toString(), null, args);
    }

    private static Result run(String binary, String stdin, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary);
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool did not finish");
        }
        return new Result(p.exitValue(), out);
    }
}
