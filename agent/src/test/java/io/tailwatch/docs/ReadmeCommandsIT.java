package io.tailwatch.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A newcomer's first commands: README.md's "Build and run" block, run as written in a fresh clone of
 * the committed tree. It builds, the agent it starts is the launcher's (with the shipped JVM flags),
 * answers on 127.0.0.1:9531, and the bare `tailwatch status` the README names next reaches it.
 */
class ReadmeCommandsIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** The lines of the first sh block after the heading. */
    static List<String> block(String readme, String heading) {
        int h = readme.indexOf("\n## " + heading + "\n");
        assertThat(h).as("README.md has the heading " + heading).isNotNegative();
        int start = readme.indexOf("```sh\n", h) + "```sh\n".length();
        int end = readme.indexOf("```", start);
        return readme.substring(start, end).lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void theBuildAndRunCommandsWorkAsWrittenOnAFreshClone(@TempDir Path tmp) throws Exception {
        Path clone = tmp.resolve("tailwatch");
        Process git = new ProcessBuilder("git", "clone", "-q", "--no-hardlinks", AgentProcess.root().toString(), clone.toString())
                .redirectErrorStream(true).start();
        assertThat(git.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(git.exitValue()).as(new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        List<String> commands = block(Files.readString(clone.resolve("README.md")), "Build and run");
        assertThat(commands.get(commands.size() - 1)).isEqualTo("tailwatch run");

        Path log = tmp.resolve("readme.log");
        Process shell = new ProcessBuilder("bash", "-euc", String.join("\n", commands)).directory(clone.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await("the README's agent answering /healthz on 127.0.0.1:9531").atMost(Duration.ofMinutes(8))
                    .pollInterval(Duration.ofSeconds(1))
                    .failFast("the README's commands ended: " + tail(log), () -> !shell.isAlive())
                    .until(() -> healthz() == 200);
            // The agent is the launcher's java, with the shipped heap.
            // (bash may exec the last command itself, and the launcher execs java.)
            ProcessHandle agentJava = java.util.stream.Stream.concat(java.util.stream.Stream.of(shell.toHandle()), shell.descendants()).filter(p -> p.info().command().orElse("").endsWith("java"))
                    .findFirst().orElseThrow();
            assertThat(agentJava.info().arguments().map(List::of).orElse(List.of())).contains("-Xmx24m", "-XX:+UseSerialGC");
            // What the README says next, as a bare command on the same PATH.
            Process status = new ProcessBuilder("bash", "-euc", commands.get(1) + "\ntailwatch status")
                    .directory(clone.toFile()).redirectErrorStream(true).start();
            assertThat(status.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String out = new String(status.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(status.exitValue()).as(out).isZero();
            assertThat(out).contains("http://127.0.0.1:9531");
        } finally {
            shell.descendants().forEach(ProcessHandle::destroy);
            shell.destroy();
            shell.waitFor(30, TimeUnit.SECONDS);
            shell.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    private static int healthz() {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:9531/healthz")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.substring(Math.max(0, s.length() - 2000));
        } catch (IOException e) {
            return e.toString();
        }
    }
}
