package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.daemon.engine.EngineReload;
import io.tailwatch.daemon.engine.EngineWatch;
import io.tailwatch.testing.RecordingAlertmanager;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload restarts an engine's watch only when a key the watch is built from changes
 * ({@link EngineReload}): every key of {@link EngineConfig} is changed alone on a running daemon, and the
 * watch is the same object with its state, or a new one, as decided. A reload that changes only a lane
 * leaves a firing EngineDown firing, with nothing resolved sent to Alertmanager.
 */
class EngineReloadTest {

    @TempDir
    Path dir;

    /** The engine's YAML lines with every key set; {@code %d} is the engine's port. */
    private static final String BASE = """
              - name: sim
                api: openai
                url: http://127.0.0.1:%d
                model: m1
                health: {interval: 1s, timeout: 500ms, loading_limit: 10m}
                skip_when_pressure_critical: true
                connect_timeout: 2s
                scenarios: [{name: interactive, interval: 1h}]
                process: {names: [engine-a]}
                launchd_label: io.example.engine-a
                signals: {interval: 15s}
                proxy:
                  listen: 127.0.0.1:0
                  lanes:
                    - {name: interactive, header: {name: X-Lane, value: i}}
            """;

    /** Per key (record component): the base line and the line that changes only that key. */
    private static final Map<String, String[]> VARIANTS = variants();

    private static Map<String, String[]> variants() {
        Map<String, String[]> m = new LinkedHashMap<>();
        m.put("name", new String[] {"- name: sim", "- name: sim2"});
        m.put("api", new String[] {"api: openai", "api: ollama"});
        m.put("url", new String[] {"url: http://127.0.0.1:", "url: http://127.0.0.2:"});
        m.put("model", new String[] {"model: m1", "model: m2"});
        m.put("apiKey", new String[] {"model: m1", "model: m1\n  api_key: key-for-the-engine"});
        m.put("healthInterval", new String[] {"health: {interval: 1s,", "health: {interval: 2s,"});
        m.put("healthTimeout", new String[] {"timeout: 500ms,", "timeout: 600ms,"});
        m.put("skipWhenPressureCritical", new String[] {"critical: true", "critical: false"});
        m.put("scenarios", new String[] {"interval: 1h}]", "interval: 2h}]"});
        m.put("processNames", new String[] {"names: [engine-a]", "names: [engine-b]"});
        m.put("launchdLabel", new String[] {"label: io.example.engine-a", "label: io.example.engine-b"});
        m.put("signals", new String[] {"signals: {interval: 15s}", "signals: {interval: 16s}"});
        m.put("connectTimeout", new String[] {"connect_timeout: 2s", "connect_timeout: 3s"});
        m.put("proxy", new String[] {"value: i}}", "value: interactive}}"});
        m.put("loadingLimit", new String[] {"loading_limit: 10m}", "loading_limit: 11m}"});
        return m;
    }

    private static List<String> components() {
        return Arrays.stream(EngineConfig.class.getRecordComponents()).map(RecordComponent::getName).toList();
    }

    private String yaml(String engine, String alerts) {
        return "server: {listen: 127.0.0.1:0}\nhost: {interval: 500ms, timeout: 400ms}\nengines:\n" + engine
                + "rules:\n  EngineDown: {for: 1s}\nalerts:\n  baseline: {file: " + dir.resolve("baselines.json") + "}\n"
                + alerts;
    }

    private static Config parse(String yaml) throws io.tailwatch.core.config.ConfigException {
        return Config.parse(yaml, "test", Map.of());
    }

    @Test
    void every_engine_key_has_a_reload_decision_and_a_variant_here() {
        assertThat(EngineReload.DECISIONS.keySet()).containsExactlyInAnyOrderElementsOf(components());
        assertThat(VARIANTS.keySet()).as("a key added to EngineConfig needs a decision and a test variant")
                .containsExactlyInAnyOrderElementsOf(components());
    }

    @Test
    void changing_only_one_key_keeps_or_restarts_the_watch_as_decided() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"))) {
            String base = BASE.formatted(sim.port()).indent(-2);
            Config baseConfig = parse(yaml(base, ""));
            Daemon d = ReloadingDaemonTest.plain(baseConfig).start();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(d.engines().watch("sim").state()));
                for (Map.Entry<String, String[]> v : VARIANTS.entrySet()) {
                    String key = v.getKey();
                    assertThat(base).as(key).contains(v.getValue()[0]);
                    Config changed = parse(yaml(base.replace(v.getValue()[0], v.getValue()[1]), ""));
                    EngineConfig was = baseConfig.engines().get(0);
                    EngineConfig now = changed.engines().get(0);
                    assertThat(EngineReload.changed(was, now)).as("only %s changes", key).containsExactly(key);
                    EngineWatch before = d.engines().watch("sim");
                    java.time.Instant reconfigured = java.time.Instant.now();
                    d.reconfigure(changed);
                    EngineWatch after = d.engines().watch(now.name());
                    assertThat(after).as(key).isNotNull();
                    if (EngineReload.DECISIONS.get(key).watch()) {
                        assertThat(after).as("%s restarts the watch", key).isNotSameAs(before);
                        // Starts over: no check yet, or only checks of its own (the first may already be done on a busy machine).
                        assertThat(after.health()).as("a new watch starts over").satisfiesAnyOf(
                                h -> assertThat(h).isNull(),
                                h -> assertThat(h.checkedAt()).isAfterOrEqualTo(reconfigured));
                    } else {
                        assertThat(after).as("%s keeps the watch", key).isSameAs(before);
                        assertThat(after.state()).as("%s keeps its state", key).isEqualTo("up");
                        assertThat(after.config()).as("%s is applied", key).isEqualTo(now);
                    }
                    d.reconfigure(baseConfig);
                    await().atMost(Duration.ofSeconds(20)).until(() -> d.engines().watch("sim") != null
                            && "up".equals(d.engines().watch("sim").state()));
                }
            } finally {
                d.close();
            }
        }
    }

    @Test
    void a_reload_changing_only_a_lane_leaves_a_firing_engine_down_firing() throws Exception {
        RecordingAlertmanager am = RecordingAlertmanager.start();
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
        String base = BASE.formatted(sim.port()).indent(-2);
        String alerts = "  alertmanagers: [\"" + am.url() + "\"]\n"
                + "  alertmanager_resend_delay: 1s\n"
                + "  alertmanager_timeout: 2s\n";
        AtomicReference<String> next = new AtomicReference<>(yaml(base, alerts));
        try (ReloadingDaemon r = ReloadingDaemon.start(parse(next.get()), () -> parse(next.get()), "test", Map.of(),
                ReloadingDaemonTest::plain, () -> { })) {
            Daemon d = r.daemon();
            await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(d.engines().watch("sim").state()));
            sim.close();
            await().atMost(Duration.ofSeconds(20)).until(() -> engineDownState(d).equals("firing"));
            await().atMost(Duration.ofSeconds(10)).until(() -> am.postsWith("EngineDown", 0) > 0);
            EngineWatch watch = d.engines().watch("sim");

            next.set(yaml(base.replace("value: i}}", "value: interactive}}"), alerts));
            r.reload();
            int seen = am.received();
            assertThat(r.daemon()).isSameAs(d);
            assertThat(d.engines().watch("sim")).isSameAs(watch);
            // Alertmanager gets the alert again (resend_delay 1s) twice after the reload: still firing each time.
            await().atMost(Duration.ofSeconds(15)).until(() -> am.postsWith("EngineDown", seen) >= 2);
            am.assertNeverResolved("EngineDown");
            assertThat(engineDownState(d)).isEqualTo("firing");
            assertThat(d.engines().watch("sim").state()).isEqualTo("down");
        } finally {
            sim.close();
            am.close();
        }
    }

    private static String engineDownState(Daemon d) {
        return d.rules().alerts().stream().filter(a -> a.name().equals("EngineDown")).map(a -> a.state().name().toLowerCase())
                .findFirst().orElse("none");
    }
}
