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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A newcomer's first commands: README.md's "Build and run" block. The gate checks what it proves
 * cheaply: the lines name what the build made (the build command, the launcher on the PATH line), and
 * the PATH and run lines, run as written in this tree, start the launcher's agent (with the shipped JVM
 * flags) on 127.0.0.1:9531, where the bare `tailwatch status` the README names next reaches it. The
 * soak (-Psoak) runs the whole block, build included, in a fresh clone of the committed tree.
 * Tagged "alone": the README's port is fixed, so this class runs after the parallel integration tests,
 * with nothing else beside it.
 */
@Tag("alone")
class ReadmeCommandsIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Where the README says the agent listens. */
    static final int PORT = 9531;

    /** The lines of the first sh block after the heading. */
    static List<String> block(String readme, String heading) {
        int h = readme.indexOf("\n## " + heading + "\n");
        assertThat(h).as("README.md has the heading " + heading).isNotNegative();
        int start = readme.indexOf("```sh\n", h) + "```sh\n".length();
        int end = readme.indexOf("```", start);
        return readme.substring(start, end).lines().filter(l -> !l.isBlank()).toList();
    }

    /** Fails at once, naming the port, when something already listens where the README's agent will. */
    static void assertPortFree() {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.bind(new java.net.InetSocketAddress("127.0.0.1", PORT));
        } catch (IOException e) {
            throw new AssertionError("127.0.0.1:" + PORT + " is taken (" + e.getMessage() + "): the README's `tailwatch run`"
                    + " listens there; stop whatever holds it (e.g. `ss -ltnp 'sport = :" + PORT + "'`) and run the test again");
        }
    }

    @Test
    void theReadmeLinesNameWhatTheBuildMadeAndStartItsAgent() throws Exception {
        assertPortFree();
        Path root = AgentProcess.root();
        List<String> commands = block(Files.readString(root.resolve("README.md")), "Build and run");
        assertThat(commands).hasSize(3);
        // The build line is the package build this test runs after; the PATH line names the launcher it left.
        assertThat(commands.get(0)).startsWith("mvn ").contains(" package");
        assertThat(commands.get(1)).isEqualTo("export PATH=\"$PWD/agent/target/tailwatch/bin:$PATH\"");
        assertThat(Files.isExecutable(root.resolve("agent/target/tailwatch/bin/tailwatch"))).as("the build's launcher").isTrue();
        assertThat(root.resolve("agent/target/tailwatch/lib/tailwatch.jar")).isRegularFile();
        runAsWritten(root, commands.subList(1, commands.size()), commands.get(1), Duration.ofMinutes(1));
    }

    @Test
    @Tag("soak")
    void theBuildAndRunCommandsWorkAsWrittenOnAFreshClone(@TempDir Path tmp) throws Exception {
        assertPortFree();
        Path clone = tmp.resolve("tailwatch");
        Process git = new ProcessBuilder("git", "clone", "-q", "--no-hardlinks", AgentProcess.root().toString(), clone.toString())
                .redirectErrorStream(true).start();
        assertThat(git.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(git.exitValue()).as(new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        List<String> commands = block(Files.readString(clone.resolve("README.md")), "Build and run");
        runAsWritten(clone, commands, commands.get(1), Duration.ofMinutes(8));
    }

    /**
     * Runs {@code commands} (ending with `tailwatch run`) in {@code dir}, waits for the agent on the README's
     * port, checks it is the launcher's java, and runs `tailwatch status` after {@code pathLine}.
     */
    private static void runAsWritten(Path dir, List<String> commands, String pathLine, Duration within) throws Exception {
        assertThat(commands.get(commands.size() - 1)).isEqualTo("tailwatch run");
        Path log = Files.createTempFile("readme", ".log");
        Process shell = new ProcessBuilder("bash", "-euc", String.join("\n", commands)).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await("the README's agent answering /healthz on 127.0.0.1:" + PORT).atMost(within)
                    .pollInterval(Duration.ofMillis(250))
                    .failFast("the README's commands ended: " + tail(log), () -> !shell.isAlive())
                    .until(() -> healthz() == 200);
            // The agent is the launcher's java, with the shipped heap.
            // (bash may exec the last command itself, and the launcher execs java.)
            ProcessHandle agentJava = java.util.stream.Stream.concat(java.util.stream.Stream.of(shell.toHandle()), shell.descendants())
                    .filter(p -> p.info().command().orElse("").endsWith("java")).findFirst().orElseThrow();
            assertThat(agentJava.info().arguments().map(List::of).orElse(List.of())).contains("-Xmx24m", "-XX:+UseSerialGC");
            // What the README says next, as a bare command on the same PATH.
            Process status = new ProcessBuilder("bash", "-euc", pathLine + "\ntailwatch status")
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            assertThat(status.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String out = new String(status.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(status.exitValue()).as(out).isZero();
            assertThat(out).contains("http://127.0.0.1:" + PORT);
        } finally {
            shell.descendants().forEach(ProcessHandle::destroy);
            shell.destroy();
            shell.waitFor(30, TimeUnit.SECONDS);
            shell.descendants().forEach(ProcessHandle::destroyForcibly);
            Files.deleteIfExists(log);
        }
    }

    private static int healthz() {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + "/healthz")).timeout(Duration.ofSeconds(2)).build(),
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
