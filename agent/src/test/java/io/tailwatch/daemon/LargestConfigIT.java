package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The largest configuration `config check` accepts (32 engines with 2 scenarios each: the 64 scenarios
 * of the bound) runs with the shipped flags through the release launcher, every scenario probed, and is
 * scraped repeatedly in both formats and gzip, each scrape rendered anew, without running out of its 24
 * MiB heap; one engine more, or one scenario more, and `config check` refuses (exit 2) naming the bound.
 */
class LargestConfigIT {
    /** {@code engines} engines alternating between the two simulators, {@code perEngine} scenarios each, one more on the first. */
    private static String config(int engines, int perEngine, int extraOnFirst, int ollamaPort, int openaiPort) {
        StringBuilder y = new StringBuilder("server:\n  listen: 127.0.0.1:0\nengines:\n");
        for (int i = 0; i < engines; i++) {
            boolean ollama = i % 2 == 0;
            y.append("  - name: e").append(i).append("\n    api: ").append(ollama ? "ollama" : "openai")
                    .append("\n    url: http://127.0.0.1:").append(ollama ? ollamaPort : openaiPort)
                    .append("\n    health: {interval: 5s, timeout: 2s}\n    scenarios:\n");
            for (int s = 0; s < perEngine + (i == 0 ? extraOnFirst : 0); s++) {
                y.append("      - name: s").append(s).append("\n        interval: 5s\n        max_tokens: 8\n")
                        .append("        timeouts: {connect: 1s, first_token: 2s, total: 4s}\n");
            }
        }
        return y.toString();
    }

    @Test
    void theLargestAcceptedConfigurationRunsInTheShippedHeapAndOneMoreIsRefused(@TempDir Path dir) throws Exception {
        int perEngine = EngineConfig.MAX_SCENARIOS / EngineConfig.MAX_ENGINES;
        try (EngineSimulator ollama = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(10), 800).withSlots(8));
             EngineSimulator openai = EngineSimulator.start("openai", "127.0.0.1", 0,
                     SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(10), 800).withSlots(8))) {
            Path largest = dir.resolve("largest.yaml");
            Files.writeString(largest, config(EngineConfig.MAX_ENGINES, perEngine, 0, ollama.port(), openai.port()));
            AgentProcess.Result ok = AgentProcess.run(Map.of(), "config", "check", largest.toString());
            assertThat(ok.exitCode()).as(ok.stderr()).isZero();

            Path moreEngines = dir.resolve("more-engines.yaml");
            Files.writeString(moreEngines, config(EngineConfig.MAX_ENGINES + 1, 1, 0, ollama.port(), openai.port()));
            AgentProcess.Result engines = AgentProcess.run(Map.of(), "config", "check", moreEngines.toString());
            assertThat(engines.exitCode()).isEqualTo(2);
            assertThat(engines.stderr()).contains("engines: 33 engines, more than the 32 the agent supports")
                    .doesNotContain("scenarios over all engines");

            Path moreScenarios = dir.resolve("more-scenarios.yaml");
            Files.writeString(moreScenarios, config(EngineConfig.MAX_ENGINES, perEngine, 1, ollama.port(), openai.port()));
            AgentProcess.Result scenarios = AgentProcess.run(Map.of(), "config", "check", moreScenarios.toString());
            assertThat(scenarios.exitCode()).isEqualTo(2);
            assertThat(scenarios.stderr()).contains("engines: 65 scenarios over all engines, more than the 64 the agent supports");

            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", largest.toString())) {
                agent.awaitListening();
                String cmdline = Files.readString(Path.of("/proc/" + agent.process().pid() + "/cmdline")).replace('\0', ' ');
                assertThat(cmdline).contains("-Xmx24m").contains("-XX:+ExitOnOutOfMemoryError");
                // An agent that exits (out of heap: the shipped flags exit on it) fails at once, with its output.
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1))
                        .failFast("the agent exited; its output is in the test's standard error", () -> {
                            boolean exited = !agent.process().isAlive();
                            if (exited) {
                                System.err.println(agent.stderr());
                            }
                            return exited;
                        })
                        .ignoreExceptions()
                        .until(() -> agent.get("/metrics").body().lines()
                                .filter(l -> l.startsWith("tailwatch_probe_success{") && l.matches(".*\\} 1(\\.0)?")).count()
                                == EngineConfig.MAX_SCENARIOS);
                String text = "";
                long series = 0;
                for (int i = 0; i < 30; i++) {
                    assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                    HttpResponse<String> r = switch (i % 3) {
                        case 0 -> agent.get("/metrics");
                        case 1 -> agent.get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0");
                        default -> agent.get("/metrics", "Accept-Encoding", "gzip");
                    };
                    assertThat(r.statusCode()).isEqualTo(200);
                    if (i % 3 == 0) {
                        text = r.body();
                        series = text.lines().filter(l -> !l.startsWith("#") && !l.isEmpty()).count();
                        assertThat((long) text.length()).isLessThanOrEqualTo(MetricHub.Limits.DEFAULT.maxExpositionBytes() + 64 * 1024);
                    } else if (i % 3 == 1) {
                        assertThat(r.body()).endsWith("\n# EOF\n");
                    } else {
                        assertThat(r.headers().firstValue("Content-Encoding")).hasValue("gzip");
                    }
                    Thread.sleep(600); // past the reuse of a rendering: every scrape renders
                }
                assertThat(series).as("series in the largest configuration").isGreaterThan(3_000);
                // Everything fits the hub's bounds: no series dropped, every engine and scenario on the page.
                assertThat(text.lines().filter(l -> l.startsWith("tailwatch_series_dropped_total ")))
                        .as(agent.stderr()).containsExactly("tailwatch_series_dropped_total 0.0");
                assertThat(agent.stderr()).doesNotContain("series bound reached");
                assertThat(text.lines().filter(l -> l.startsWith("tailwatch_engine_up{"))).hasSize(EngineConfig.MAX_ENGINES);
                assertThat(text.lines().filter(l -> l.startsWith("gen_ai_client_operation_duration_seconds_count{")))
                        .hasSize(EngineConfig.MAX_SCENARIOS);
                Promtool.Result lint = Promtool.run(text, "check", "metrics");
                assertThat(lint.exitCode()).as(lint.output()).isZero();
                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                assertThat(agent.stderr() + agent.stdout()).doesNotContain("OutOfMemoryError");
                System.out.printf("largest configuration: %d engines, %d scenarios, %d series, %d bytes of text exposition%n",
                        EngineConfig.MAX_ENGINES, EngineConfig.MAX_SCENARIOS, series, text.length());
            }
        }
    }
}
