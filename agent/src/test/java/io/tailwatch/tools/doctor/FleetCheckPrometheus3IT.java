package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit's receiver config and {@code tailwatch doctor --fleet} against Prometheus 3.5's own config parser
 * (promtool 3.5 from scripts/prometheus-root.sh): the kit's prometheus-otlp.yml and its rules are valid to it;
 * every translation strategy Prometheus 3.5 accepts is one the doctor knows, and the doctor warns about each
 * but the one the dashboards and rules query; a strategy Prometheus refuses, the doctor calls unknown.
 */
class FleetCheckPrometheus3IT {
    private static final Path KIT = AgentProcess.root().resolve("dashboards/fleet/prometheus-otlp.yml");
    private static final String SUPPORTED = "translation_strategy: " + FleetCheck.SUPPORTED_STRATEGY;

    @TempDir
    Path dir;

    @Test
    void prometheus3AcceptsTheKitsReceiverConfigAndItsRules() throws Exception {
        Promtool.Result r = Promtool.run3("check", "config", KIT.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("is valid prometheus config file syntax", "SUCCESS: 19 rules found");
        assertThat(FleetCheck.warnings(List.of(KIT), Map.of())).isEmpty();
    }

    @Test
    void theDoctorWarnsAboutEveryStrategyPrometheus3AcceptsButTheSupportedOne() throws Exception {
        String kit = Files.readString(KIT);
        assertThat(kit).contains(SUPPORTED);
        List<String> accepted = new ArrayList<>();
        for (String strategy : List.of(FleetCheck.SUPPORTED_STRATEGY, "UnderscoreEscapingWithoutSuffixes",
                "NoUTF8EscapingWithSuffixes", "NoTranslation", "DotsToUnderscores")) {
            Path file = dir.resolve(strategy + ".yml");
            Files.writeString(file, kit.replace(SUPPORTED, "translation_strategy: " + strategy));
            Promtool.Result r = Promtool.run3("check", "config", "--syntax-only", file.toString());
            List<String> warnings = FleetCheck.warnings(List.of(file), Map.of());
            if (r.exitCode() == 0) {
                accepted.add(strategy);
                assertThat(FleetCheck.KNOWN_STRATEGIES).as("a strategy Prometheus 3.5 accepts").contains(strategy);
                if (!strategy.equals(FleetCheck.SUPPORTED_STRATEGY)) {
                    assertThat(warnings).singleElement().asString()
                            .contains("otlp.translation_strategy " + strategy + ":").doesNotContain("not a strategy");
                }
            } else {
                assertThat(r.output()).contains("unsupported OTLP translation strategy \"" + strategy + "\"");
                assertThat(warnings).singleElement().asString().contains("otlp.translation_strategy " + strategy);
            }
            if (strategy.equals(FleetCheck.SUPPORTED_STRATEGY)) {
                assertThat(warnings).isEmpty();
            }
        }
        // Prometheus 3.5 knows these three (UnderscoreEscapingWithoutSuffixes came later); made-up names it refuses.
        assertThat(accepted).containsExactly(FleetCheck.SUPPORTED_STRATEGY, "NoUTF8EscapingWithSuffixes", "NoTranslation");
        assertThat(FleetCheck.warnings(List.of(dir.resolve("DotsToUnderscores.yml")), Map.of()).get(0))
                .contains("not a strategy Prometheus knows");

        // The command itself, on the file a Prometheus 3 user picks for dotted names.
        AgentProcess.Result doctor = AgentProcess.run(Map.of(), "doctor", "--fleet",
                dir.resolve("NoUTF8EscapingWithSuffixes.yml").toString());
        assertThat(doctor.exitCode()).as(doctor.stdout() + doctor.stderr()).isEqualTo(1);
        assertThat(doctor.stdout()).contains("WARN  ", "otlp.translation_strategy NoUTF8EscapingWithSuffixes", "fleet: 1 warning(s)");
    }
}
