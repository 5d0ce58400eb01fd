package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.capacity.BenchReport;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capacity commands as a user runs them: the real jar against the engine simulator on
 * loopback, started as `tailwatch simulate` in its own process, or in this JVM where a test needs
 * to see what the engine received. Simulated timings are short so each ladder takes seconds.
 */
class CapacityIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static EngineSimulator simulator(String api, Duration ttft, double tps, double errorRate) throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults(api).withTiming(ttft, tps).withSlots(1)
                .withFaults(errorRate, 0, Duration.ZERO).withSeed(42);
        return EngineSimulator.start(api, "127.0.0.1", 0, o);
    }

    private static final java.util.regex.Pattern SIM_URL = java.util.regex.Pattern.compile("on http://127\\.0\\.0\\.1:(\\d+)");

    /** Starts `tailwatch simulate` as its own process, as an operator would for a fire drill; returns it and its port. */
    private static AgentProcess simulate(String... args) throws Exception {
        java.util.List<String> all = new java.util.ArrayList<>(List.of("simulate", "--listen", "127.0.0.1:0", "--seed", "42"));
        all.addAll(List.of(args));
        AgentProcess p = AgentProcess.start(Map.of(), all.toArray(String[]::new));
        await().atMost(Duration.ofSeconds(30)).until(() -> SIM_URL.matcher(p.stdout()).find() || !p.process().isAlive());
        assertThat(p.process().isAlive()).as(p.stderr()).isTrue();
        return p;
    }

    private static int simPort(AgentProcess sim) {
        java.util.regex.Matcher m = SIM_URL.matcher(sim.stdout());
        assertThat(m.find()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private Map<String, String> env() {
        return Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString());
    }

    /** A config with host roots under {@code tmp} (no PSI file unless a test writes one) and the simulator as engine "sim". */
    private Path config(String api, int port) throws Exception {
        Path proc = Files.createDirectories(tmp.resolve("proc"));
        Path sys = Files.createDirectories(tmp.resolve("sys"));
        Path cfg = tmp.resolve("tailwatch.yaml");
        Files.writeString(cfg, """
                host:
                  procfs: %s
                  sysfs: %s
                alerts:
                  baseline:
                    file: %s
                engines:
                  - name: sim
                    api: %s
                    url: http://127.0.0.1:%d
                """.formatted(proc, sys, tmp.resolve("data/baselines.json"), api, port));
        return cfg;
    }

    private static JsonNode summary(Path dir) throws Exception {
        return JSON.readTree(dir.resolve("summary.json").toFile());
    }

    @Test
    void serial_engine_latency_grows_linearly_throughput_stays_flat_and_the_3x_rule_stops_at_4() throws Exception {
        // one slot, ~0.3 s per request: 100 ms to the first token, then 20 tokens at 100 tok/s
        try (AgentProcess sim = simulate("--api", "openai", "--slots", "1", "--ttft", "100ms", "--tokens-per-second", "100")) {
            Path out = tmp.resolve("ladder");
            AgentProcess.Result r = AgentProcess.run(env(), "ladder", "--config", config("openai", simPort(sim)).toString(),
                    "--engine", "sim", "--levels", "1,2,4,8", "--max-tokens", "20", "--prompt-tokens", "50",
                    "--out", out.toString(), "--gate", "daily=30,budget=10m", "--force");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode s = summary(out);
            JsonNode levels = s.get("levels");
            assertThat(levels).hasSize(3);
            double p50At1 = levels.get(0).get("p50_seconds").asDouble();
            double p50At2 = levels.get(1).get("p50_seconds").asDouble();
            double p50At4 = levels.get(2).get("p50_seconds").asDouble();
            // latency ~ concurrency x service time
            assertThat(p50At2 / p50At1).isBetween(1.6, 2.5);
            assertThat(p50At4 / p50At1).isBetween(3.2, 5.0);
            // total throughput flat: one slot serves one request at a time whatever the concurrency
            double t1 = levels.get(0).get("output_tokens_per_second").asDouble();
            for (JsonNode l : levels) {
                assertThat(l.get("output_tokens_per_second").asDouble() / t1).isBetween(0.7, 1.5);
                assertThat(l.get("errors").asInt()).isZero();
            }
            assertThat(levels.get(0).get("requests").asInt()).isEqualTo(5);
            assertThat(levels.get(1).get("requests").asInt()).isEqualTo(6);
            assertThat(levels.get(2).get("requests").asInt()).isEqualTo(12);
            JsonNode stopped = s.get("stopped");
            assertThat(stopped.get("rule").asText()).isEqualTo("p95_ratio");
            assertThat(stopped.get("level").asInt()).isEqualTo(4);
            assertThat(stopped.get("value").asDouble()).isGreaterThanOrEqualTo(3.0);
            assertThat(stopped.get("threshold").asDouble()).isEqualTo(3.0);
            assertThat(s.get("gate").get("pass").asBoolean()).isTrue();
            assertThat(s.get("metadata").get("engine").asText()).isEqualTo("sim");
            assertThat(s.get("metadata").get("model").asText()).isEqualTo(SimulatorOptions.DEFAULT_OPENAI_MODEL);
            assertThat(s.get("metadata").get("prompt_sha256").asText()).hasSize(64);

            List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
            assertThat(csv).hasSize(1 + 1 + 5 + 6 + 12);
            assertThat(Files.readString(out.resolve("report.md"))).contains("by rule **p95_ratio**").contains("pass with");
            BufferedImage png = ImageIO.read(out.resolve("ladder.png").toFile());
            assertThat(png.getWidth()).isPositive();
            assertThat(r.stdout()).contains("stopped at concurrency 4 by p95_ratio");

            // the run and its concurrency-1 baseline are in the local history
            AgentProcess.Result h = AgentProcess.run(env(), "history", "--engine", "sim", "--json");
            assertThat(h.exitCode()).as(h.stderr()).isZero();
            JsonNode rows = JSON.readTree(h.stdout());
            assertThat(rows).extracting(n -> n.get("kind").asText()).containsExactlyInAnyOrder("ladder", "baseline");

            // no --save-baseline: the alert rules' baselines are left alone
            assertThat(tmp.resolve("data/baselines.json")).doesNotExist();
        }
    }

    @Test
    void ladder_saves_a_baseline_only_when_asked_for_a_configured_engine_with_the_scenarios_shape() throws Exception {
        try (AgentProcess sim = simulate("--api", "openai", "--slots", "1", "--ttft", "50ms", "--tokens-per-second", "400")) {
            // --save-baseline where the model is unknown (the simulator's mlx_lm flavour is probed naming none, and no
            // mlx_lm.server command line tells which model it serves): refused, saying how to name it
            Path cfg = config("openai", simPort(sim));
            AgentProcess.Result unnamed = AgentProcess.run(env(), "ladder", "--config", cfg.toString(), "--engine", "sim",
                    "--levels", "1", "--max-tokens", "32", "--prompt-tokens", "64", "--out", tmp.resolve("l1").toString(),
                    "--force", "--save-baseline", "--no-history");
            assertThat(unnamed.exitCode()).as(unnamed.stderr()).isZero();
            assertThat(unnamed.stderr()).contains("baseline not saved: the model is unknown (give --model)");
            // --save-baseline with another request shape than the scenario's: refused, saying why
            AgentProcess.Result other = AgentProcess.run(env(), "ladder", "--config", cfg.toString(), "--engine", "sim",
                    "--model", SimulatorOptions.DEFAULT_OPENAI_MODEL,
                    "--levels", "1", "--max-tokens", "20", "--prompt-tokens", "50", "--out", tmp.resolve("l2").toString(),
                    "--force", "--save-baseline", "--no-history");
            assertThat(other.exitCode()).as(other.stderr()).isZero();
            assertThat(other.stderr()).contains("baseline not saved: scenario interactive probes with 64 prompt / 32 max tokens");
            assertThat(tmp.resolve("data/baselines.json")).doesNotExist();
            // an ad-hoc --url engine is never given a baseline
            AgentProcess.Result adHoc = AgentProcess.run(env(), "ladder", "--config", cfg.toString(), "--url",
                    "http://127.0.0.1:" + simPort(sim), "--api", "openai", "--levels", "1", "--max-tokens", "32",
                    "--prompt-tokens", "64", "--out", tmp.resolve("l3").toString(), "--force", "--save-baseline", "--no-history");
            assertThat(adHoc.stderr()).contains("baseline not saved: --url names an engine the agent does not watch");

            // the scenario's own shape: saved, and a second run says what it replaced
            for (String expected : new String[] {"(there was none)", "; it replaces "}) {
                AgentProcess.Result same = AgentProcess.run(env(), "ladder", "--config", cfg.toString(), "--engine", "sim",
                        "--model", SimulatorOptions.DEFAULT_OPENAI_MODEL, "--levels", "1", "--max-tokens", "32", "--prompt-tokens", "64", "--out", tmp.resolve("l4").toString(),
                        "--force", "--save-baseline", "--no-history");
                assertThat(same.exitCode()).as(same.stderr()).isZero();
                assertThat(same.stderr()).contains("baseline p95 ").contains(expected);
                JsonNode baselines = JSON.readTree(tmp.resolve("data/baselines.json").toFile()).get("baselines");
                assertThat(baselines).hasSize(1);
                assertThat(baselines.get(0).get("engine").asText()).isEqualTo("sim");
                assertThat(baselines.get(0).get("model").asText()).isEqualTo(SimulatorOptions.DEFAULT_OPENAI_MODEL);
                assertThat(baselines.get(0).get("scenario").asText()).isEqualTo("interactive");
                assertThat(baselines.get(0).get("source").asText()).isEqualTo("ladder");
                assertThat(baselines.get(0).get("p95_seconds").asDouble())
                        .isEqualTo(summary(tmp.resolve("l4")).get("levels").get(0).get("p95_seconds").asDouble());
            }
        }
    }

    @Test
    void errors_stop_the_ladder_at_level_one() throws Exception {
        try (AgentProcess sim = simulate("--api", "ollama", "--ttft", "20ms", "--tokens-per-second", "400",
                "--error-rate", "0.6")) {
            Path out = tmp.resolve("errors");
            AgentProcess.Result r = AgentProcess.run(env(), "ladder", "--url", "http://127.0.0.1:" + simPort(sim),
                    "--api", "ollama", "--levels", "1,2,4", "--max-tokens", "8", "--prompt-tokens", "20",
                    "--out", out.toString(), "--force", "--no-history");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode s = summary(out);
            assertThat(s.get("levels")).hasSize(1);
            assertThat(s.get("levels").get(0).get("errors").asInt()).isPositive();
            assertThat(s.get("stopped").get("rule").asText()).isEqualTo("error_rate");
            assertThat(s.get("stopped").get("level").asInt()).isEqualTo(1);
            assertThat(s.get("stopped").get("threshold").asDouble()).isZero();
            assertThat(Files.readString(out.resolve("requests.csv"))).contains(",http_500,");
        }
    }

    @Test
    void ctrl_c_mid_run_leaves_a_valid_partial_report() throws Exception {
        // ~1 s per request on one slot: the first level takes several seconds
        try (EngineSimulator sim = simulator("openai", Duration.ofMillis(200), 20, 0)) {
            Path out = tmp.resolve("partial");
            try (AgentProcess p = AgentProcess.start(env(), "ladder", "--url", "http://127.0.0.1:" + sim.port(),
                    "--api", "openai", "--levels", "1,2,4", "--max-tokens", "16", "--prompt-tokens", "20",
                    "--out", out.toString(), "--force", "--no-history")) {
                await().atMost(Duration.ofSeconds(30)).until(() -> p.stderr().contains("warm-up:"));
                // SIGINT, as Ctrl-C in a terminal sends it
                new ProcessBuilder("kill", "-INT", String.valueOf(p.process().pid())).start().waitFor(5, TimeUnit.SECONDS);
                assertThat(p.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(p.process().exitValue()).isEqualTo(130);
                assertThat(p.stderr()).contains("partial report");
            }
            JsonNode s = summary(out);
            assertThat(s.get("interrupted").asBoolean()).isTrue();
            assertThat(s.get("complete").asBoolean()).isFalse();
            assertThat(s.get("stopped").get("rule").asText()).isEqualTo("interrupted");
            assertThat(s.get("levels").size()).isLessThanOrEqualTo(1);
            assertThat(Files.readString(out.resolve("report.md"))).contains("PARTIAL REPORT");
            assertThat(Files.readAllLines(out.resolve("requests.csv")).get(0)).startsWith("phase,concurrency,seq");
            assertThat(ImageIO.read(out.resolve("ladder.png").toFile())).isNotNull();
        }
    }

    private static String meminfo(long swapFreeKb) {
        return """
                MemTotal:       16384000 kB
                MemFree:         8192000 kB
                MemAvailable:   12288000 kB
                Buffers:          102400 kB
                Cached:          2048000 kB
                SReclaimable:     204800 kB
                SwapTotal:       8388608 kB
                SwapFree:        %d kB
                """.formatted(swapFreeKb);
    }

    @Test
    void swap_growing_by_more_than_a_gib_during_a_step_stops_the_ladder() throws Exception {
        // ~0.5 s per request, so the step is still running when the fixture's swap grows
        try (EngineSimulator sim = simulator("openai", Duration.ofMillis(100), 40, 0)) {
            Path cfg = config("openai", sim.port());
            Path meminfo = tmp.resolve("proc/meminfo");
            Files.writeString(meminfo, meminfo(8_388_608));
            Path out = tmp.resolve("swap");
            try (AgentProcess p = AgentProcess.start(env(), "ladder", "--config", cfg.toString(), "--engine", "sim",
                    "--levels", "1,2", "--max-tokens", "16", "--prompt-tokens", "20", "--out", out.toString(),
                    "--force", "--no-history")) {
                // request 2 is the first of step 1, sent after the step's "before" host sample
                await().atMost(Duration.ofSeconds(30)).until(() -> sim.requests().size() >= 2);
                Files.writeString(meminfo, meminfo(8_388_608 - 2_097_152)); // 2 GiB of swap now used
                assertThat(p.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(p.process().exitValue()).as(p.stderr()).isZero();
            }
            JsonNode s = summary(out);
            assertThat(s.get("levels")).hasSize(1);
            JsonNode l1 = s.get("levels").get(0);
            assertThat(l1.get("host_before").get("swap_used_bytes").asDouble()).isZero();
            assertThat(l1.get("host_after").get("swap_used_bytes").asDouble()).isEqualTo(2.0 * (1L << 30));
            assertThat(s.get("stopped").get("rule").asText()).isEqualTo("swap_growth");
            assertThat(s.get("stopped").get("value").asDouble()).isEqualTo(2.0 * (1L << 30));
            assertThat(s.get("stopped").get("threshold").asDouble()).isEqualTo(1.0 * (1L << 30));
        }
    }

    @Test
    void preflight_refuses_on_critical_memory_pressure_unless_forced() throws Exception {
        try (EngineSimulator sim = simulator("openai", Duration.ofMillis(10), 1000, 0)) {
            Path cfg = config("openai", sim.port());
            Files.createDirectories(tmp.resolve("proc/pressure"));
            Files.writeString(tmp.resolve("proc/pressure/memory"), """
                    some avg10=60.00 avg60=40.00 avg300=20.00 total=123456789
                    full avg10=35.00 avg60=20.00 avg300=10.00 total=98765432
                    """);
            AgentProcess.Result r = AgentProcess.run(env(), "ladder", "--config", cfg.toString(), "--engine", "sim",
                    "--out", tmp.resolve("refused").toString(), "--no-history");
            assertThat(r.exitCode()).isEqualTo(3);
            assertThat(r.stderr()).contains("memory pressure is critical").contains("--force");
            assertThat(tmp.resolve("refused")).doesNotExist();

            AgentProcess.Result b = AgentProcess.run(env(), "bench", "--config", cfg.toString(), "--engine", "sim",
                    "--no-history");
            assertThat(b.exitCode()).isEqualTo(3);
            assertThat(b.stderr()).contains("memory pressure is critical");
        }
    }

    @Test
    void bench_reports_median_and_stability_and_keeps_history() throws Exception {
        try (EngineSimulator sim = simulator("ollama", Duration.ofMillis(20), 200, 0)) {
            String[] args = {"bench", "--url", "http://127.0.0.1:" + sim.port(), "--api", "ollama", "--runs", "3",
                    "--max-tokens", "20", "--prompt-tokens", "20", "--json", "--force"};
            AgentProcess.Result r = AgentProcess.run(env(), args);
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode e = JSON.readTree(r.stdout()).get("engines").get(0);
            assertThat(e.get("valid_runs").asInt()).isEqualTo(3);
            // the simulator decodes at exactly 200 tok/s
            assertThat(e.get("median_tokens_per_second").asDouble()).isBetween(150.0, 260.0);
            assertThat(e.get("stability").asText()).isIn("stable", "variable", "unstable");
            assertThat(e.has("stddev_tokens_per_second")).isTrue();
            assertThat(e.get("metadata").get("quantization").asText()).isEqualTo("Q4_K_M");
            assertThat(e.get("history").get("past_runs").asInt()).isZero();

            AgentProcess.Result again = AgentProcess.run(env(), args);
            assertThat(again.exitCode()).as(again.stderr()).isZero();
            JsonNode h = JSON.readTree(again.stdout()).get("engines").get(0).get("history");
            assertThat(h.get("past_runs").asInt()).isEqualTo(1);
            assertThat(h.get("reference_median_tokens_per_second").asDouble()).isPositive();
        }
    }

    @Test
    void bench_ctrl_c_drops_the_run_in_flight_and_leaves_a_partial_report() throws Exception {
        // 40 tokens at 10 tok/s: about 4 s a run, so a SIGINT lands inside one
        try (EngineSimulator sim = simulator("ollama", Duration.ofMillis(50), 10, 0)) {
            Path out = tmp.resolve("bench-partial");
            try (AgentProcess p = AgentProcess.start(env(), "bench", "--url", "http://127.0.0.1:" + sim.port(), "--api",
                    "ollama", "--runs", "10", "--max-tokens", "40", "--prompt-tokens", "20", "--force", "--no-history",
                    "--out", out.toString())) {
                // the warm-up and the first run have reached the engine: the first run is under way or done
                await().atMost(Duration.ofSeconds(60)).until(() -> sim.served() >= 3);
                new ProcessBuilder("kill", "-INT", String.valueOf(p.process().pid())).start().waitFor(5, TimeUnit.SECONDS);
                assertThat(p.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(p.process().exitValue()).isEqualTo(130);
                assertThat(p.stderr()).contains("interrupted; partial report in");
                assertThat(p.stdout()).startsWith(BenchReport.PARTIAL);
            }
            JsonNode doc = JSON.readTree(Files.readString(out.resolve("bench.json")));
            assertThat(doc.get("interrupted").asBoolean()).isTrue();
            JsonNode e = doc.get("engines").get(0);
            // runs that finished are kept; the one in flight is dropped, not counted as a failure
            assertThat(e.get("valid_runs").asInt()).isBetween(1, 9);
            assertThat(e.get("runs").asInt()).isEqualTo(e.get("valid_runs").asInt());
            assertThat(e.get("median_tokens_per_second").asDouble()).isBetween(5.0, 15.0);
            assertThat(Files.readString(out.resolve("bench.md"))).startsWith("# Benchmark report\n\n" + BenchReport.PARTIAL);
        }
    }

    @Test
    void bench_over_two_engines_unloads_the_first_and_cools_down_between() throws Exception {
        try (EngineSimulator a = simulator("ollama", Duration.ofMillis(20), 300, 0);
             EngineSimulator b = simulator("ollama", Duration.ofMillis(20), 150, 0)) {
            Path proc = Files.createDirectories(tmp.resolve("proc"));
            Path sys = Files.createDirectories(tmp.resolve("sys"));
            Path cfg = tmp.resolve("two.yaml");
            Files.writeString(cfg, """
                    host: {procfs: %s, sysfs: %s}
                    engines:
                      - {name: fast, api: ollama, url: "http://127.0.0.1:%d"}
                      - {name: slow, api: ollama, url: "http://127.0.0.1:%d"}
                    """.formatted(proc, sys, a.port(), b.port()));
            AgentProcess.Result r = AgentProcess.run(env(), "bench", "--config", cfg.toString(), "--engine", "fast",
                    "--engine", "slow", "--runs", "2", "--max-tokens", "20", "--prompt-tokens", "20", "--cool-down", "0s",
                    "--cool-down-wait", "2s", "--json", "--no-history");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode engines = JSON.readTree(r.stdout()).get("engines");
            assertThat(engines).hasSize(2);
            assertThat(engines.get(0).get("engine").asText()).isEqualTo("fast");
            assertThat(engines.get(0).has("cool_down")).isFalse();
            assertThat(engines.get(1).get("cool_down").asText()).containsPattern("^(waited [0-9.]+ s for memory pressure|memory pressure (normal|unknown))")
                    .endsWith("paused 0s");
            assertThat(engines.get(0).get("median_tokens_per_second").asDouble())
                    .isGreaterThan(engines.get(1).get("median_tokens_per_second").asDouble());
            assertThat(engines.get(0).get("run_results").get(0).get("decode_source").asText()).isEqualTo("engine");
            // the first engine's model was unloaded before the second was measured
            assertThat(a.requests()).anySatisfy(body -> {
                assertThat(body.path("keep_alive").asInt(-1)).isZero();
                assertThat(body.path("model").asText()).isEqualTo(SimulatorOptions.DEFAULT_OLLAMA_MODEL);
            });
        }
    }

    @Test
    void a_damaged_history_is_reported_and_the_measurement_still_prints() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve("history.db"), "not a database ".repeat(500));
        try (EngineSimulator sim = simulator("ollama", Duration.ofMillis(10), 500, 0)) {
            AgentProcess.Result r = AgentProcess.run(env(), "bench", "--url", "http://127.0.0.1:" + sim.port(),
                    "--api", "ollama", "--runs", "2", "--max-tokens", "20", "--prompt-tokens", "20", "--force");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(r.stdout()).contains("tok/s, median of 2 runs");
            // not a terminal: progress comes as plain lines on stderr
            assertThat(r.stderr()).contains("request 3 of 3");
            assertThat(r.stderr()).contains("history.db").contains("damaged");
        }
    }

    @Test
    void kv_budget_from_explicit_shape_and_from_ollama() throws Exception {
        AgentProcess.Result r = AgentProcess.run(env(), "kv-budget", "--layers", "40", "--kv-heads", "8", "--head-dim",
                "128", "--bytes-per-element", "2", "--memory", "192GiB", "--weights", "10GiB", "--json");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        JsonNode j = JSON.readTree(r.stdout());
        assertThat(j.get("bytes_per_token").asLong()).isEqualTo(163_840L);
        assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(891_289L);
        assertThat(j.get("contexts").get(0).get("tokens").asLong()).isEqualTo(4096);
        assertThat(j.get("contexts").get(0).get("bytes").asLong()).isEqualTo(4096L * 163_840);

        try (EngineSimulator sim = simulator("ollama", Duration.ofMillis(10), 500, 0)) {
            AgentProcess.Result o = AgentProcess.run(env(), "kv-budget", "--url", "http://127.0.0.1:" + sim.port(),
                    "--model", SimulatorOptions.DEFAULT_OLLAMA_MODEL, "--context", "8192", "--json");
            assertThat(o.exitCode()).as(o.stderr()).isZero();
            JsonNode oj = JSON.readTree(o.stdout());
            assertThat(oj.get("bytes_per_token").asLong()).isEqualTo(128 * 1024L);
            assertThat(oj.get("safe_max_tokens").isNull()).isTrue();

            // the same through a configured engine
            AgentProcess.Result viaConfig = AgentProcess.run(env(), "kv-budget", "--config",
                    config("ollama", sim.port()).toString(), "--engine", "sim", "--model",
                    SimulatorOptions.DEFAULT_OLLAMA_MODEL, "--cache-type", "q8_0", "--memory", "64GiB", "--weights", "5GiB");
            assertThat(viaConfig.exitCode()).as(viaConfig.stderr()).isZero();
            assertThat(viaConfig.stdout()).contains("KV bytes per token: 65536 (64.00 KiB)")
                    .contains("safe max KV tokens: " + (long) Math.floor((64.0 - 10 - 5 - 2) * (1L << 30) * 0.8 / 65536));

            AgentProcess.Result missing = AgentProcess.run(env(), "kv-budget", "--url", "http://127.0.0.1:" + sim.port(),
                    "--model", "no-such-model");
            assertThat(missing.exitCode()).isEqualTo(1);
            assertThat(missing.stderr()).contains("/api/show");
        }
        AgentProcess.Result bad = AgentProcess.run(env(), "kv-budget", "--layers", "40", "--kv-heads", "8");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("--head-dim");
    }
}
