package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** `tailwatch simulate` and `tailwatch probe` as separate processes of the real jar, on loopback. */
class SimulateCommandIT {
    static Process jar(String... args) throws Exception {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "java";
        cmd[1] = "-jar";
        cmd[2] = System.getProperty("tailwatch.jar");
        System.arraycopy(args, 0, cmd, 3, args.length);
        return new ProcessBuilder(cmd).start();
    }

    @Test
    void probeCommandMeasuresTheSimulateCommand() throws Exception {
        Process sim = jar("simulate", "--api", "openai", "--listen", "127.0.0.1:0", "--ttft", "50ms",
                "--tokens-per-second", "200", "--model", "drill-model");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(sim.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).isNotNull().contains("drill-model");
            Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)").matcher(line);
            assertThat(m.find()).isTrue();
            String url = "http://127.0.0.1:" + m.group(1);

            Process probe = jar("probe", "--url", url, "--api", "openai", "--max-tokens", "10", "--json");
            assertThat(probe.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String json = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(probe.exitValue()).as(json).isZero();
            JsonNode r = new ObjectMapper().readTree(json);
            assertThat(r.get("success").asBoolean()).isTrue();
            // The default openai flavour is today's mlx_lm.server: without --model the probe names none (its list is
            // the Hugging Face cache, and naming a listed model would swap it in), and the answer echoes default_model.
            // That placeholder is no model's name, and no mlx_lm.server command line tells the served one: unknown.
            assertThat(r.get("model").isNull()).as(json).isTrue();
            assertThat(r.get("output_tokens").asInt()).isEqualTo(10);
            assertThat(r.get("token_source").asText()).isEqualTo("usage");
            assertThat(r.get("ttft_seconds").asDouble()).isGreaterThanOrEqualTo(0.05);

            Process bad = jar("probe", "--url", url, "--api", "openai", "--model", "other");
            assertThat(bad.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(bad.exitValue()).isEqualTo(1);
            assertThat(new String(bad.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("http_404");
        } finally {
            sim.destroy();
            assertThat(sim.waitFor(20, TimeUnit.SECONDS)).as("simulate stops on SIGTERM").isTrue();
        }
    }
}
