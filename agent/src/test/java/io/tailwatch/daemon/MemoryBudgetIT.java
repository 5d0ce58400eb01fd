package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings each accepted on its own whose worst case cannot fit the heap the release launcher gives (24 MiB):
 * a proxy of 512 connections and a webhook queue of 100,000 notifications. {@code config check} and
 * {@code run}, both through the launcher, refuse them with exit 2 naming the key; the defaults pass.
 */
@EnabledOnOs(OS.LINUX)
class MemoryBudgetIT {
    @TempDir
    Path dir;

    private AgentProcess.Result shipped(String... args) throws Exception {
        try (AgentProcess p = AgentProcess.startShipped(dir, Map.of(), args)) {
            assertThat(p.process().waitFor(90, TimeUnit.SECONDS)).as("finished").isTrue();
            return new AgentProcess.Result(p.process().exitValue(), p.stdout(), p.stderr());
        }
    }

    private Path config(String name, String proxy, String alerts) throws Exception {
        Path c = dir.resolve(name);
        Files.writeString(c, "server:\n  listen: 127.0.0.1:0\nengines:\n  - name: e\n    api: openai\n"
                + "    url: http://127.0.0.1:9\n    scenarios: []\n    proxy:\n      listen: 127.0.0.1:0\n" + proxy + alerts);
        return c;
    }

    @Test
    void aConfigWhoseWorstCaseCannotFitTheShippedHeapIsRefusedNamingItsKeys() throws Exception {
        Path connections = config("connections.yaml", "      max_connections: 512\n", "");
        Path queue = config("queue.yaml", "", "alerts:\n  webhook:\n    url: http://127.0.0.1:9/hook\n    queue_size: 100000\n");
        Path defaults = config("defaults.yaml", "", "alerts:\n  webhook:\n    url: http://127.0.0.1:9/hook\n");

        // A config with a proxy is checked against the heap the launcher gives a proxied daemon (jvm-proxy.options).
        AgentProcess.Result r = shipped("config", "check", connections.toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(2);
        assertThat(r.stderr()).contains("engines[0].proxy.max_connections (512)").contains("the agent 17.0 MiB")
                .containsPattern("does not fit the 3[12]\\.\\d MiB heap");

        r = shipped("config", "check", queue.toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(2);
        assertThat(r.stderr()).contains("alerts.webhook.queue_size (100000)").containsPattern("does not fit the 3[12]\\.\\d MiB heap");

        r = shipped("config", "check", defaults.toString());
        assertThat(r.exitCode()).as(r.stderr()).isZero();

        // Without a proxy the daemon keeps the 24 MiB heap, and the budget is checked against it.
        Path plain = dir.resolve("plain.yaml");
        Files.writeString(plain, "server:\n  listen: 127.0.0.1:0\nengines: []\nalerts:\n  webhook:\n"
                + "    url: http://127.0.0.1:9/hook\n    queue_size: 4000\n");
        r = shipped("config", "check", plain.toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(2);
        assertThat(r.stderr()).contains("alerts.webhook.queue_size (4000) 7.8 MiB").containsPattern("does not fit the 2[34]\\.\\d MiB heap");

        r = shipped("run", "--config", connections.toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(2);
        assertThat(r.stderr()).contains("engines[0].proxy.max_connections (512)");

        // A reload to the same settings is refused too, and the running config stays.
        Path live = dir.resolve("live.yaml");
        Files.copy(defaults, live);
        try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", live.toString())) {
            agent.awaitListening();
            Files.copy(connections, live, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(agent.process().pid())).start();
            assertThat(hup.waitFor()).isZero();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(agent.stderr()).contains("keeping the running config: the worst case this config allows")
                            .contains("engines[0].proxy.max_connections (512)"));
            assertThat(agent.get("/metrics").statusCode()).isEqualTo(200);
        }
    }
}
