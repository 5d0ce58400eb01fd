package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RulesConfigTest {
    private static final Map<String, String> ENV = Map.of("HOME", "/home/op");

    private static List<String> problems(String yaml) {
        return ConfigProblems.of(yaml, ENV);
    }

    @Test
    void documentedDefaultsEqualTheDeclarations() throws Exception {
        Config file = Config.load(Path.of(System.getProperty("tailwatch.root", ".."), "config", "tailwatch.yaml"), ENV);
        Config empty = Config.parse("", "empty", ENV);
        assertThat(file.rules()).isEqualTo(RulesConfig.defaults());
        assertThat(empty.rules()).isEqualTo(RulesConfig.defaults());
        assertThat(file.alerts()).isEqualTo(empty.alerts());
        for (RuleDef r : Rules.ALL) {
            assertThat(file.rules().of(r.name()).threshold()).isEqualTo(r.defaultThreshold());
            assertThat(file.rules().of(r.name()).forDuration()).isEqualTo(r.defaultFor());
        }
        assertThat(Rules.ALL).extracting(RuleDef::name).containsExactly("SwapUsedHigh", "SwapGrowthUnderLoad",
                "MemoryPressureWarning", "MemoryPressureCritical", "ThermalThrottling", "EngineDown", "ProbeErrors",
                "TailLatencySpread", "LatencyOverBaseline", "TtftOverSlo", "KvHeadroomLow", "GpuMemoryLimitNear", "LaneSloMissed",
                "LaneGoodputLow", "LaneQueueWaitHigh", "SamplerFailing",
                "OtlpExportFailing", "WebhookNotificationsDropped", "TailwatchDown");
    }

    @Test
    void partialOverrideKeepsTheOtherDefaults() throws Exception {
        Config c = Config.parse("""
                rules:
                  SwapUsedHigh: {threshold: 2GiB}
                  TtftOverSlo: {for: 5m}
                  ThermalThrottling: {threshold: 70%}
                  EngineDown: {enabled: false}
                """, "t", ENV);
        assertThat(c.rules().of("SwapUsedHigh")).isEqualTo(new RulesConfig.RuleSettings(2.0 * (1L << 30), Duration.ofMinutes(2), true));
        assertThat(c.rules().of("TtftOverSlo")).isEqualTo(new RulesConfig.RuleSettings(0.5, Duration.ofMinutes(5), true));
        assertThat(c.rules().of("ThermalThrottling").threshold()).isEqualTo(0.7);
        assertThat(c.rules().of("EngineDown").enabled()).isFalse();
        assertThat(c.rules().of("ProbeErrors")).isEqualTo(RulesConfig.defaults().of("ProbeErrors"));
    }

    @Test
    void unknownRulesKeysAndBadValuesAreReportedWithLineAndColumn() {
        List<String> p = problems("""
                rules:
                  SwapUsedHigh: {threshold: lots}
                  SwapUsedHihg: {threshold: 2GiB}
                  EngineDown: {threshold: 3}
                  TailLatencySpread:
                    for: 10 minutes
                    severity: page
                alerts:
                  webhook: {url: "ftp://x", queue_size: 0}
                  colour: red
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("line 2, column 29: rules.SwapUsedHigh.threshold: expected a size"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("line 3, column 3: rules.SwapUsedHihg: unknown rule; known rules: SwapUsedHigh"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("rules.EngineDown.threshold: EngineDown has no threshold"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("line 6, column 10: rules.TailLatencySpread.for: expected a duration"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("line 7, column 5: rules.TailLatencySpread.severity: unknown key"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.webhook.url: expected an http:// or https:// URL"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.webhook.queue_size: out of range"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("line 10, column 3: alerts.colour: unknown key"));
    }

    @Test
    void webhookAndBaselineSettings() throws Exception {
        Config c = Config.parse("""
                alerts:
                  resolved_retention: 1h
                  webhook: {url: "http://127.0.0.1:9093/hook", timeout: 2s, cooldown: 1m, queue_size: 8, max_attempts: 3}
                  baseline: {file: ~/state/b.json, min_samples: 5}
                """, "t", ENV);
        AlertsConfig a = c.alerts();
        assertThat(a.resolvedRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(a.webhook().enabled()).isTrue();
        assertThat(a.webhook().url().toString()).isEqualTo("http://127.0.0.1:9093/hook");
        assertThat(a.webhook().queueSize()).isEqualTo(8);
        assertThat(a.baselineFile()).isEqualTo(Path.of("/home/op/state/b.json"));
        assertThat(a.baselineMinSamples()).isEqualTo(5);
        assertThat(Config.parse("", "t", ENV).alerts().webhook().enabled()).isFalse();
    }

    @Test
    void alertmanagersAreTheirApiV2EndpointsAndBadOnesNameTheKey() throws Exception {
        AlertsConfig a = Config.parse("""
                alerts:
                  alertmanagers: ["http://127.0.0.1:9093", "https://am.example/prefix/", "http://127.0.0.1:9094/api/v2/alerts"]
                  alertmanager_resend_delay: 30s
                  labels: {site: lab, instance: "mac-01:9531"}
                """, "t", ENV).alerts();
        assertThat(a.alertmanagers().urls()).extracting(Object::toString).containsExactly(
                "http://127.0.0.1:9093/api/v2/alerts", "https://am.example/prefix/api/v2/alerts",
                "http://127.0.0.1:9094/api/v2/alerts");
        assertThat(a.alertmanagers().resendDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(a.alertmanagers().timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(a.labels()).containsEntry("site", "lab").containsEntry("instance", "mac-01:9531");
        assertThat(Config.parse("", "t", ENV).alerts().alertmanagers().enabled()).isFalse();

        List<String> p = problems("""
                alerts:
                  alertmanagers: ["ftp://x", "http://127.0.0.1:9093/api/v1/alerts"]
                  labels: {alertname: x, "bad-name": y}
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.alertmanagers: [0]: expected an Alertmanager URL"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.alertmanagers: [1]: 'http://127.0.0.1:9093/api/v1/alerts' is the v1 API"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.labels: 'alertname' is set by each rule"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.labels: 'bad-name' is not a label name"));
    }

    @Test
    void anAlertmanagerTimeoutNotShorterThanTheAlertsValidityIsRefusedNamingBothKeys() throws Exception {
        List<String> p = problems("""
                alerts:
                  alertmanagers: ["http://127.0.0.1:9093"]
                  alertmanager_timeout: 4s
                  alertmanager_resend_delay: 1s
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("alerts.alertmanager_timeout: 4s must be shorter than")
                .contains("4 x alertmanager_resend_delay (4s)"));
        AlertsConfig ok = Config.parse("""
                alerts:
                  alertmanagers: ["http://127.0.0.1:9093"]
                  alertmanager_timeout: 3900ms
                  alertmanager_resend_delay: 1s
                """, "t", ENV).alerts();
        assertThat(ok.alertmanagers().timeout()).isEqualTo(Duration.ofMillis(3900));
    }
}
