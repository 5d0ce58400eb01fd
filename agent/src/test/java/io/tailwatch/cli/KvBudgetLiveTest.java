package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kv-budget --live} against a real daemon on a loopback port. The Mac's figures come from a sampler that
 * publishes what the macOS samplers would (the native calls cannot run here): a 96 GiB working-set limit, Ollama's
 * process tree holding 60 GiB of graphics memory and mlx 12 GiB. On this Linux host the daemon's own samplers give
 * neither figure: they are absent from the output, never 0.
 */
class KvBudgetLiveTest {
    static final long GIB = 1L << 30;
    static final String[] SHAPE = {"kv-budget", "--layers", "40", "--kv-heads", "8", "--head-dim", "128", "--memory", "128GiB",
        "--weights", "10GiB", "--gpu-limit", "none"};

    @TempDir
    Path tmp;

    /** What the macOS samplers publish on a Mac with two engines running. */
    static final Sampler MAC = new Sampler() {
        public String name() {
            return "mac-figures";
        }

        public List<Point> sample() {
            return List.of(HostMetrics.gpuMemoryLimit(96.0 * GIB), Point.of(HostMetrics.MEMORY_AVAILABLE, 40.0 * GIB),
                    Point.of(HostMetrics.PROCESS_FOOTPRINT, 61.0 * GIB, AttrKeys.ENGINE, "ollama"),
                    HostMetrics.processGpuMemory("ollama", 60.0 * GIB),
                    Point.of(HostMetrics.PROCESS_FOOTPRINT, 13.0 * GIB, AttrKeys.ENGINE, "mlx"),
                    HostMetrics.processGpuMemory("mlx", 12.0 * GIB));
        }
    };

    static Config config() throws Exception {
        return Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\n  timeout: 1s\nengines: []\n", "test", Map.of());
    }

    static String[] with(String... more) {
        String[] a = java.util.Arrays.copyOf(SHAPE, SHAPE.length + more.length);
        System.arraycopy(more, 0, a, SHAPE.length, more.length);
        return a;
    }

    private static void awaitHostSample(Daemon d) {
        Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> d.host().latest() != null
                && !d.host().latest().points().isEmpty());
    }

    @Test
    void the_running_agents_limit_engines_graphics_memory_and_headroom() throws Exception {
        try (Daemon d = new Daemon(config(), Map.of(), List.of(MAC)).start()) {
            awaitHostSample(d);
            String agent = "http://127.0.0.1:" + d.port();
            HistoryCommandTest.Run r = HistoryCommandTest.run(with("--live", "--agent", agent, "--json"));
            assertThat(r.code()).as(r.err()).isZero();
            JsonNode live = new ObjectMapper().readTree(r.out()).get("live");
            assertThat(live.get("source").asText()).isEqualTo("the running agent at " + agent);
            assertThat(live.get("gpu_limit_bytes").asLong()).isEqualTo(96 * GIB);
            assertThat(live.get("engines").toString()).isEqualTo("[{\"engine\":\"mlx\",\"gpu_memory_bytes\":" + 12 * GIB
                    + "},{\"engine\":\"ollama\",\"gpu_memory_bytes\":" + 60 * GIB + "}]");
            assertThat(live.get("engines_gpu_memory_bytes").asLong()).isEqualTo(72 * GIB);
            // 96 - 72 = 24 GiB left under the limit, tighter than the 40 GiB available: 24 GiB / 160 KiB = 157,286 tokens
            assertThat(live.get("gpu_left_bytes").asLong()).isEqualTo(24 * GIB);
            assertThat(live.get("gpu_share").asDouble()).isEqualTo(0.75);
            assertThat(live.get("headroom_tokens").asLong()).isEqualTo(157_286L);
            assertThat(live.get("headroom_bound").asText()).isEqualTo("gpu_limit");

            HistoryCommandTest.Run text = HistoryCommandTest.run(with("--live", "--agent", agent));
            assertThat(text.code()).as(text.err()).isZero();
            assertThat(text.out()).contains("live, from the running agent at " + agent + ":")
                    .contains("  GPU working-set limit: 96.00 GiB")
                    .contains("  ollama graphics memory: 60.00 GiB (its processes together)")
                    .contains("  mlx graphics memory: 12.00 GiB")
                    .contains("  engines together: 72.00 GiB, 75 % of the limit; 24.00 GiB left under it")
                    .contains("  headroom: 157286 more tokens of this KV cache (the GPU working-set limit binds)");
            // the sizing above it is what kv-budget prints without --live
            assertThat(text.out()).startsWith(HistoryCommandTest.run(SHAPE).out());
        }
    }

    @Test
    void on_linux_the_mac_figures_are_absent_not_zero() throws Exception {
        Config c = config();
        try (Daemon d = new Daemon(c, Map.of(), HostSources.forThisHost(c)).start()) {
            awaitHostSample(d);
            String agent = "http://127.0.0.1:" + d.port();
            HistoryCommandTest.Run r = HistoryCommandTest.run(with("--live", "--agent", agent, "--json"));
            assertThat(r.code()).as(r.err()).isZero();
            JsonNode live = new ObjectMapper().readTree(r.out()).get("live");
            assertThat(live.has("gpu_limit_bytes")).isFalse();
            assertThat(live.has("engines_gpu_memory_bytes")).isFalse();
            assertThat(live.has("gpu_left_bytes")).isFalse();
            assertThat(live.get("engines").size()).isZero();
            // available memory is read on Linux: the headroom is the memory one
            assertThat(live.get("available_bytes").asLong()).isPositive();
            assertThat(live.get("headroom_bound").asText()).isEqualTo("memory");
            HistoryCommandTest.Run text = HistoryCommandTest.run(with("--live", "--agent", agent));
            assertThat(text.out()).contains("GPU working-set limit: not known").contains("graphics memory of the engines: not known").doesNotContain("engines together");
        }
    }

    @Test
    void without_an_agent_this_host_is_sampled_and_an_agent_named_but_gone_is_a_failure() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Path cfg = tmp.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + closed + "\nengines: []\n");
        HistoryCommandTest.Run r = HistoryCommandTest.run(with("--live", "--config", cfg.toString(), "--json"));
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode live = new ObjectMapper().readTree(r.out()).get("live");
        assertThat(live.get("source").asText()).isEqualTo("this host, sampled now (no agent answered at http://127.0.0.1:"
                + closed + ")");
        assertThat(live.has("gpu_limit_bytes")).isFalse();
        HistoryCommandTest.Run gone = HistoryCommandTest.run(with("--live", "--agent", "http://127.0.0.1:" + closed));
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).startsWith("--agent http://127.0.0.1:" + closed + ": ");
    }
}
