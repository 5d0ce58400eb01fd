package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LadderReportTest {
    @TempDir
    Path dir;

    static RunMetadata meta() {
        return new RunMetadata("0.1.0", "mlx", "openai", "http://127.0.0.1:8080", "0.28.1", "gemma-4-26b-8bit",
                "sha256:abc", "mlx", "8bit", "studio-1", "Apple M2 Ultra", "macOS 15.5", 192.0 * (1L << 30), "nominal",
                "normal", Instant.parse("2026-11-30T01:00:00Z"), Instant.parse("2026-11-30T01:05:00Z"),
                Map.of("levels", List.of(1, 2, 4, 8), "max_tokens", 120), "deadbeef");
    }

    @Test
    void writes_the_four_files_with_the_documented_fields() throws Exception {
        ScriptedEngine engine = new ScriptedEngine().ok(3.5).ok(LadderTest.N1).ok(LadderTest.N2);
        LadderResult r = new Ladder(engine, () -> LadderTest.host(0, 0), HealthCheck.NONE,
                LadderTest.options(List.of(1, 2, 4, 8), null, false), Clock.systemUTC())
                .run(LadderTest.host(0, 0), new Ladder.Listener() { });
        LadderReport.write(dir, r, meta(), Gate.parse("daily=30,budget=10m"));

        JsonNode s = new ObjectMapper().readTree(dir.resolve(LadderReport.SUMMARY).toFile());
        assertThat(s.get("levels")).hasSize(2);
        JsonNode l1 = s.get("levels").get(0);
        for (String f : List.of("concurrency", "requests", "errors", "error_rate", "p50_seconds", "p95_seconds",
                "p99_seconds", "ttft_p95_seconds", "output_tokens_per_second")) {
            assertThat(l1.has(f)).as(f).isTrue();
        }
        assertThat(l1.get("concurrency").asInt()).isEqualTo(1);
        assertThat(l1.get("p50_seconds").asDouble()).isEqualTo(3.47);
        assertThat(l1.get("p95_seconds").asDouble()).isEqualTo(3.67);
        assertThat(l1.get("error_rate").asDouble()).isZero();
        assertThat(s.get("levels").get(1).get("p95_seconds").asDouble()).isEqualTo(35.01);
        JsonNode stopped = s.get("stopped");
        assertThat(stopped.get("level").asInt()).isEqualTo(2);
        assertThat(stopped.get("rule").asText()).isEqualTo("p95_ratio");
        assertThat(stopped.get("value").asDouble()).isEqualTo(9.54);
        assertThat(stopped.get("threshold").asDouble()).isEqualTo(3.0);
        assertThat(s.get("metadata").get("model_digest").asText()).isEqualTo("sha256:abc");
        assertThat(s.get("metadata").get("prompt_sha256").asText()).isEqualTo("deadbeef");
        assertThat(s.get("gate").get("pass").asBoolean()).isTrue();
        assertThat(s.get("gate").get("headroom").asDouble()).isBetween(5.65, 5.75);
        assertThat(s.get("complete").asBoolean()).isTrue();

        List<String> csv = Files.readAllLines(dir.resolve(LadderReport.REQUESTS));
        assertThat(csv).hasSize(1 + 1 + 5 + 6);
        assertThat(csv.get(0)).startsWith("phase,concurrency,seq,started_at,success,error_type,e2e_seconds,ttft_seconds");
        assertThat(csv.get(1)).startsWith("warmup,1,1,");
        assertThat(csv).filteredOn(l -> l.startsWith("measure,2,")).hasSize(6);

        String md = Files.readString(dir.resolve(LadderReport.REPORT));
        assertThat(md).contains("Stopped at concurrency **2** by rule **p95_ratio**: value 9.54, threshold 3.00")
                .contains("30 x 3.51 s = 105 s fits the 10m budget: pass with 5.7x headroom")
                .contains("| engine_version | 0.28.1 |").contains("| chip | Apple M2 Ultra |")
                .contains("| prompt_sha256 | deadbeef |").contains("Reviewed by");

        BufferedImage png = ImageIO.read(dir.resolve(LadderReport.CHART).toFile());
        assertThat(png.getWidth()).isEqualTo(LadderChart.WIDTH);
        assertThat(png.getHeight()).isEqualTo(LadderChart.HEIGHT);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("requests.csv", "summary.json", "report.md", "ladder.png");
        }
    }

    @Test
    void unknown_figures_are_null_not_zero_and_errors_are_quoted_in_csv() throws Exception {
        ScriptedEngine engine = new ScriptedEngine().ok(1).fail("http_503", 5);
        LadderResult r = new Ladder(engine, () -> HostFigures.UNKNOWN, HealthCheck.NONE,
                LadderTest.options(List.of(1, 2), null, false), Clock.systemUTC())
                .run(HostFigures.UNKNOWN, new Ladder.Listener() { });
        LadderReport.write(dir, r, meta(), null);
        JsonNode l1 = new ObjectMapper().readTree(dir.resolve(LadderReport.SUMMARY).toFile()).get("levels").get(0);
        assertThat(l1.get("p95_seconds").isNull()).isTrue();
        assertThat(l1.get("error_rate").asDouble()).isEqualTo(1.0);
        assertThat(l1.get("host_before").get("swap_used_bytes").isNull()).isTrue();
        assertThat(l1.get("host_before").get("memory_pressure").asText()).isEqualTo("unknown");
        assertThat(Files.readString(dir.resolve(LadderReport.REQUESTS))).contains(",http_503,");
    }

    @Test
    void gate_example_from_the_source_case() {
        Gate.Verdict v = Gate.parse("daily=30,budget=10m").evaluate(3.514);
        assertThat(v.pass()).isTrue();
        assertThat(v.neededSeconds()).isBetween(105.0, 106.0);
        assertThat(String.format("%.1f", v.headroom())).isEqualTo("5.7");
        Gate.Verdict fail = Gate.parse("daily=300,budget=10m").evaluate(3.514);
        assertThat(fail.pass()).isFalse();
        assertThat(fail.sentence()).contains("FAIL");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Gate.parse("daily=30"))
                .hasMessageContaining("budget");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Gate.parse("daily=x,budget=1m"))
                .hasMessageContaining("daily");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Gate.parse("weekly=3,budget=1m"))
                .hasMessageContaining("weekly");
        assertThat(Duration.ofMinutes(10)).isEqualTo(Gate.parse("daily=30,budget=10m").budget());
    }
}
