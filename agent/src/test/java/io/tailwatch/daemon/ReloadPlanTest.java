package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a reload restarts, read from the running and the new config alone. */
class ReloadPlanTest {
    private static ReloadPlan plan(String running, String next, int boundPort) throws Exception {
        return ReloadPlan.of(Config.parse(running, "running", Map.of()), Config.parse(next, "next", Map.of()), boundPort);
    }

    private static ReloadPlan restarts(String... parts) {
        java.util.List<String> p = java.util.List.of(parts);
        return new ReloadPlan(p.contains("listener"), p.contains("sameAddress"), p.contains("host"), p.contains("history"),
                p.contains("otlp"), p.contains("rules"), p.contains("baselines"));
    }

    @Test
    void theSameConfigRestartsNothing() throws Exception {
        assertThat(plan("engines: []\n", "engines: []\n", 9531)).isEqualTo(restarts());
    }

    @Test
    void aNewSamplingIntervalRestartsTheHostLoopAndItsHistoryButATimeoutOnlyTheLoop() throws Exception {
        String running = "host:\n  interval: 5s\n  timeout: 2s\n";
        assertThat(plan(running, "host:\n  interval: 10s\n  timeout: 2s\n", 9531)).isEqualTo(restarts("host", "history"));
        assertThat(plan(running, "host:\n  interval: 5s\n  timeout: 3s\n", 9531)).isEqualTo(restarts("host"));
    }

    @Test
    void theListenerGivesItsPortBackFirstOnlyWhenTheNewOneBindsTheSameAddress() throws Exception {
        String running = "server:\n  listen: 127.0.0.1:9531\n";
        assertThat(plan(running, running + "  auth_token: abcdefgh12345678\n", 9531))
                .isEqualTo(restarts("listener", "sameAddress"));
        assertThat(plan(running, "server:\n  listen: 127.0.0.1:9532\n", 9531)).isEqualTo(restarts("listener"));
        // A config with port 0 got a port at start: the running listener holds that one, not 0.
        assertThat(plan("server:\n  listen: 127.0.0.1:0\n", "server:\n  listen: 127.0.0.1:40000\n", 40000))
                .isEqualTo(restarts("listener", "sameAddress"));
    }

    @Test
    void aNewBaselineFileReopensTheStoreWithNewRules() throws Exception {
        String running = "alerts:\n  baseline:\n    file: /tmp/a.json\n";
        assertThat(plan(running, "alerts:\n  baseline:\n    file: /tmp/b.json\n", 9531)).isEqualTo(restarts("rules", "baselines"));
        assertThat(plan(running, running + "  resolved_retention: 1h\n", 9531)).isEqualTo(restarts("rules"));
    }
}
