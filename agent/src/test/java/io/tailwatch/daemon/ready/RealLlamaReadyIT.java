package io.tailwatch.daemon.ready;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.LlamaServer;
import io.tailwatch.testing.RawStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real llama.cpp server, serial ({@code --parallel 1}) and batching ({@code --parallel 2}), watched without a
 * proxy: the verdict follows what its {@code /slots} says. Idle: ready with every slot free. One request
 * generating: the serial server is full, the batching one still ready with one slot left. Every slot busy: both
 * full. Load gone: both ready again.
 */
class RealLlamaReadyIT {

    @Test
    void verdictFollowsTheSlots(@TempDir Path dir) throws Exception {
        try (LlamaServer serial = LlamaServer.start("--parallel", "1", "--slots");
             LlamaServer batching = LlamaServer.start("--parallel", "2", "--slots")) {
            Path cfg = Files.writeString(dir.resolve("tailwatch.yaml"), "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\n"
                    + "engines:\n" + engine("serial", serial) + engine("batching", batching));
            try (AgentProcess agent = AgentProcess.start(Map.of("TAILWATCH_DATA_DIR", dir.resolve("data").toString()),
                    "run", "--config", cfg.toString())) {
                agent.awaitListening();
                awaitVerdict(agent, serial, 1, 0, true);
                awaitVerdict(agent, batching, 2, 0, true);

                List<Socket> load = new ArrayList<>();
                try {
                    load.add(RawStream.startCompletion(serial.port(), 3_500));
                    load.add(RawStream.startCompletion(batching.port(), 1_500));
                    awaitVerdict(agent, serial, 1, 1, false);
                    awaitVerdict(agent, batching, 2, 1, true);
                    load.add(RawStream.startCompletion(batching.port(), 1_500));
                    awaitVerdict(agent, batching, 2, 2, false);
                } finally {
                    for (Socket s : load) {
                        s.close();
                    }
                }
                awaitVerdict(agent, serial, 1, 0, true);
                awaitVerdict(agent, batching, 2, 0, true);
            }
        }
    }

    static String engine(String name, LlamaServer llama) {
        return "  - name: " + name + "\n    api: openai\n    url: " + llama.url() + "\n    scenarios: []\n"
                + "    health:\n      interval: 1s\n    signals:\n      source: llamacpp\n      interval: 1s\n";
    }

    /**
     * Waits until the server's /slots shows {@code busy} of {@code slots} processing and the agent's verdict agrees:
     * the same slot and running counts, ready (headroom = free slots) or full (queue_full, 503).
     */
    static void awaitVerdict(AgentProcess agent, LlamaServer llama, int slots, int busy, boolean ready) {
        String name = slots == 1 ? "serial" : "batching";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            JsonNode s = Json.MAPPER.readTree(llama.get("/slots").body());
            int processing = 0;
            for (JsonNode slot : s) {
                processing += slot.path("is_processing").asBoolean() ? 1 : 0;
            }
            assertThat(s.size()).isEqualTo(slots);
            assertThat(processing).isEqualTo(busy);
            var r = agent.get("/api/v1/engines/" + name + "/ready");
            JsonNode v = Json.MAPPER.readTree(r.body());
            assertThat(v.path("figures").path("slots").asInt()).isEqualTo(slots);
            assertThat(v.path("figures").path("requests_running").asInt(-1)).isEqualTo(busy);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(ready ? 200 : 503);
            if (ready) {
                assertThat(v.path("headroom").asInt()).isEqualTo(slots - busy);
            } else {
                assertThat(v.path("reasons").toString()).isEqualTo("[\"queue_full\"]");
            }
        });
    }
}
