package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.FaultServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A one-shot `tailwatch probe` in a fresh JVM warms its code path before the timed request without
 * sending the engine anything: a loopback engine that records every request sees exactly one, the
 * probe's own, and the warm-up's debug line shows it ran.
 */
class ColdProbeIT {
    @Test
    void freshProbeWarmsUpOnItsOwnListenerAndSendsTheEngineOneRequest() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (FaultServer engine = new FaultServer((request, out) -> {
            seen.add(request.lines().findFirst().orElse(""));
            byte[] body = ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                    + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n"
                    + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":2}}\n\n"
                    + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + body.length
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
        })) {
            AgentProcess.Result r = AgentProcess.run(
                    Map.of("JAVA_TOOL_OPTIONS", "-Dorg.slf4j.simpleLogger.log.io.tailwatch.core.probe.ProbeWarmup=debug"),
                    "probe", "--url", "http://127.0.0.1:" + engine.port(), "--api", "openai", "--model", "m", "--json");

            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode j = new ObjectMapper().readTree(r.stdout());
            assertThat(j.get("success").asBoolean()).isTrue();
            assertThat(j.get("output_tokens").asInt()).isEqualTo(2);
            assertThat(r.stderr()).containsPattern("probe path for openai warmed in \\d+ ms");
            assertThat(seen).containsExactly("POST /v1/chat/completions HTTP/1.1");
        }
    }
}
