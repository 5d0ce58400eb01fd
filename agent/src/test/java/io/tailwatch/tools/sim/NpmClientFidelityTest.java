package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The simulator's fidelity, judged by the official npm clients (`ollama`, `openai`): each must list
 * models, stream a chat to the end with usage, read a non-streamed answer and surface a 404.
 * `.ci/run` installs the packages; run by hand without them, the test is skipped.
 */
class NpmClientFidelityTest {
    static final Path DIR = Path.of(System.getProperty("tailwatch.root", ".."), "agent/src/test/node");

    static JsonNode runNode(String script, String url) throws IOException, InterruptedException {
        boolean required = "1".equals(System.getenv("TAILWATCH_REQUIRE_NODE"));
        boolean present = Files.isDirectory(DIR.resolve("node_modules/ollama")) && Files.isDirectory(DIR.resolve("node_modules/openai"));
        if (required) {
            assertThat(present).as("npm packages installed in " + DIR).isTrue();
        }
        assumeTrue(present, "npm packages not installed in " + DIR + " (run .ci/run or npm ci there)");
        Process p;
        try {
            p = new ProcessBuilder("node", script, url).directory(DIR.toFile()).redirectErrorStream(false).start();
        } catch (IOException e) {
            if (required) {
                throw e;
            }
            assumeTrue(false, "node not installed");
            return null;
        }
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(done).as("node finished").isTrue();
        assertThat(p.exitValue()).as("node exit; stderr: " + err).isZero();
        return new ObjectMapper().readTree(out.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("{}"));
    }

    static SimulatorOptions fast(String api) {
        return SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(30), 400);
    }

    @Test
    void officialOllamaClientParsesEveryResponse() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, fast("ollama"))) {
            JsonNode r = runNode("ollama-client.mjs", "http://127.0.0.1:" + sim.port());
            String model = sim.options().model();
            assertThat(r.path("tags").get(0).asText()).isEqualTo(model);
            assertThat(r.at("/ps/0/context_length").asInt()).isEqualTo(4096);
            assertThat(r.path("architecture").asText()).isEqualTo("llama");
            assertThat(r.path("block_count").asInt()).isEqualTo(32);
            assertThat(r.at("/chat_stream/text").asText()).isEqualTo(" one two three four five");
            assertThat(r.at("/chat_stream/done").asBoolean()).isTrue();
            assertThat(r.at("/chat_stream/eval_count").asInt()).isEqualTo(5);
            assertThat(r.at("/chat_stream/eval_duration").asLong()).isPositive();
            assertThat(r.at("/chat/text").asText()).isEqualTo(" one two three");
            assertThat(r.path("generate_stream").asText()).isEqualTo(" one two three four");
            assertThat(r.at("/missing/status").asInt()).isEqualTo(404);
        }
    }

    @Test
    void officialOpenAiClientParsesEveryResponse() throws Exception {
        for (String api : new String[] {"openai", "ollama"}) {
            try (EngineSimulator sim = EngineSimulator.start(api, "127.0.0.1", 0, fast(api))) {
                JsonNode r = runNode("openai-client.mjs", "http://127.0.0.1:" + sim.port() + "/v1");
                assertThat(r.path("models").get(0).asText()).as(api).isEqualTo(sim.options().model());
                assertThat(r.at("/stream/text").asText()).isEqualTo(" one two three four five six");
                assertThat(r.at("/stream/finish").asText()).isEqualTo("length");
                assertThat(r.at("/stream/usage/completion_tokens").asInt()).isEqualTo(6);
                assertThat(r.at("/stream/chunks").asInt()).isEqualTo(9); // role, 6 tokens, finish, usage
                assertThat(r.at("/chat/text").asText()).isEqualTo(" one two three");
                assertThat(r.at("/chat/usage/completion_tokens").asInt()).isEqualTo(3);
                assertThat(r.at("/missing/status").asInt()).isEqualTo(404);
            }
        }
    }
}
