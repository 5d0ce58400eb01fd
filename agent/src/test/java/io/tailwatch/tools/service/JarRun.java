package io.tailwatch.tools.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the real tailwatch jar (system property tailwatch.jar) as a child process, with a deadline. */
final class JarRun {
    static final Path JAR = Path.of(System.getProperty("tailwatch.jar", "target/tailwatch.jar"));

    record Done(int exit, String out, String err) {
    }

    private JarRun() {
    }

    static ProcessBuilder builder(Map<String, String> env, Path work, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx64m");
        cmd.addAll(io.tailwatch.testing.AgentProcess.fastStart());
        cmd.add("-jar");
        cmd.add(JAR.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
        pb.environment().putAll(env);
        return pb;
    }

    static Done run(Map<String, String> env, Path work, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        Process p = builder(env, work, args).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tailwatch " + String.join(" ", args) + " did not finish within 60 s");
        }
        Done d = new Done(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return d;
    }
}
