package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** promtool checks the generated rules and runs their unit tests (every rule firing and silent). */
class PromtoolRulesIT {
    private static final Path ROOT = AgentProcess.root();

    @Test
    void committedRulesPassPromtoolCheck() throws Exception {
        Promtool.Result r = Promtool.run(null, "check", "rules", ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS: " + Rules.ALL.size() + " rules found");
    }

    @Test
    void promtoolUnitTestsPass() throws Exception {
        Promtool.Result r = Promtool.run(null, "test", "rules",
                ROOT.resolve("dashboards/prometheus/tests/tailwatch-rules.test.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void jarOutputWithCustomThresholdsPassesPromtoolCheck(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, """
                rules:
                  SwapUsedHigh: {threshold: 512MiB, for: 30s}
                  ThermalThrottling: {threshold: 65%}
                  ProbeErrors: {enabled: false}
                """);
        AgentProcess.Result out = AgentProcess.run(Map.of(), "rules", "--format", "prometheus", "-c", cfg.toString());
        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(out.stdout()).contains("> 536870912", "< 0.65").doesNotContain("ProbeErrors");
        Path f = dir.resolve("rules.yml");
        Files.writeString(f, out.stdout());
        Promtool.Result r = Promtool.run(null, "check", "rules", f.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS: " + (Rules.ALL.size() - 1) + " rules found");
        assertThat(out.stdout()).isEqualTo(RuleExport.prometheus(Config.load(cfg, Map.of())));
    }

    @Test
    void badRuleConfigExitsTwoWithLineAndColumn(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, "rules:\n  SwapUsedHgh: {threshold: 2GiB}\n");
        AgentProcess.Result out = AgentProcess.run(Map.of(), "rules", "--format", "prometheus", "-c", cfg.toString());
        assertThat(out.exitCode()).isEqualTo(2);
        assertThat(out.stderr()).contains("line 2, column 3: rules.SwapUsedHgh: unknown rule");
    }
}
