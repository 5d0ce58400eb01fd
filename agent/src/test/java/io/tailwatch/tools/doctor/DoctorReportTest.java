package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.host.SamplerResult;
import io.tailwatch.core.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DoctorReportTest {
    private static final String TOOL = "free -b (Mem used = total - available in procps-ng 4, buffers and cache excluded)";
    private static final String TOLERANCE = "5 % of the tool's value, at least 67108864 B (0.06 GiB): 158892236 B (0.15 GiB)";

    private static DoctorReport report() {
        List<Check> checks = List.of(
                new Check("system.memory.usage{used} <= system.memory.limit", "3175682048 B (2.96 GiB)", TOOL,
                        "3177844736 B (2.96 GiB)", TOLERANCE, Check.Verdict.AGREE, ""),
                new Check("tailwatch.thermal.pressure.level", "absent", "-", "-", "[0, 5)", Check.Verdict.UNAVAILABLE,
                        "0 nominal ... 4 sleeping; no tool prints the notify state on this machine, so only the range is checked"),
                new Check("system.memory.limit", "1073741824 B (1.00 GiB)", "/proc/meminfo (MemTotal)", "25276059648 B (23.54 GiB)",
                        "0 B (0.00 GiB)", Check.Verdict.DISAGREE, ""));
        Map<String, SamplerResult> samplers = Map.of(
                "memory", new SamplerResult("memory", true, Duration.ofNanos(2_345_678), null),
                "power", new SamplerResult("power", false, Duration.ofMillis(1500),
                        "/sys/class/powercap/intel-rapl:0/energy_uj: permission denied (readable by root only on this kernel)"));
        return new DoctorReport("Linux, procfs /proc", checks, samplers, Instant.parse("2026-11-30T04:07:06.973Z"));
    }

    @Test
    void textFitsOneHundredColumnsWithEveryLabelAndReadableTimes() {
        String out = report().render();
        assertThat(out.lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(DoctorReport.WIDTH));
        String joined = out.replaceAll("\n +", " ");
        assertThat(joined).contains("system.memory.usage{used} <= system.memory.limit", "vs " + TOOL + ": 3177844736 B (2.96 GiB)",
                "tolerance " + TOLERANCE, "native 3175682048 B (2.96 GiB)", "tailwatch.thermal.pressure.level", "valid [0, 5)",
                "(0 nominal ... 4 sleeping; no tool prints the notify state on this machine, so only the range is checked)",
                "memory: ok in 2 ms", "power: failed in 1.5 s: /sys/class/powercap/intel-rapl:0/energy_uj: permission denied",
                "result: 1 agree, 1 disagree or invalid, 0 checked natively, 1 not available");
        assertThat(out.lines().filter(l -> l.startsWith("DISAGREE ")).findFirst().orElseThrow()).endsWith("  system.memory.limit");
        assertThat(out).containsPattern("(?m)^at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} ").doesNotContain("PT").doesNotContain("2345678")
                .doesNotContain("1764475626");
    }

    @Test
    void jsonKeepsEveryFieldUnabridged() throws Exception {
        JsonNode j = Json.MAPPER.readTree(report().json());
        assertThat(j.path("time").asText()).isEqualTo("2026-11-30T04:07:06.973Z");
        assertThat(j.path("failed").asBoolean()).isTrue();
        assertThat(j.path("checks")).hasSize(3);
        JsonNode first = j.path("checks").get(0);
        assertThat(first.path("tool").asText()).isEqualTo(TOOL);
        assertThat(first.path("tolerance").asText()).isEqualTo(TOLERANCE);
        assertThat(first.path("tool_value").asText()).isEqualTo("3177844736 B (2.96 GiB)");
        assertThat(j.path("checks").get(2).path("verdict").asText()).isEqualTo("disagree");
        assertThat(j.path("samplers").get(0).path("name").asText()).isEqualTo("memory");
        assertThat(j.path("samplers").get(0).path("duration_seconds").asDouble()).isEqualTo(0.002345678);
        assertThat(j.path("samplers").get(1).path("error").asText()).endsWith("(readable by root only on this kernel)");
        assertThat(j.path("result").path("disagree").asInt()).isEqualTo(1);
        assertThat(j.path("result").path("unavailable").asInt()).isEqualTo(1);
    }
}
