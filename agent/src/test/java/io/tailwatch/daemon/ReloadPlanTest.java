package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a reload restarts, read from the running and the new config alone. */
class ReloadPlanTest {
    private static Config parse(String yaml) throws Exception {
        return Config.parse(yaml, "test", Map.of());
    }

    @Test
    void theSameConfigRestartsNothing() throws Exception {
        Config c = parse("engines: []\n");
        assertThat(ReloadPlan.of(c, parse("engines: []\n"), 9531))
                .isEqualTo(new ReloadPlan(false, false, false, false, false, false, false));
    }

    @Test
    void aNewSamplingIntervalRestartsTheHostLoopAndItsHistoryButATimeoutOnlyTheLoop() throws Exception {
        Config c = parse("host:\n  interval: 5s\n  timeout: 2s\n");
        ReloadPlan interval = ReloadPlan.of(c, parse("host:\n  interval: 10s\n  timeout: 2s\n"), 9531);
        assertThat(interval.host()).isTrue();
        assertThat(interval.history()).isTrue();
        assertThat(interval.listener()).isFalse();
        ReloadPlan timeout = ReloadPlan.of(c, parse("host:\n  interval: 5s\n  timeout: 3s\n"), 9531);
        assertThat(timeout.host()).isTrue();
        assertThat(timeout.history()).isFalse();
    }

    @Test
    void theListenerGivesItsPortBackFirstOnlyWhenTheNewOneBindsTheSameAddress() throws Exception {
        Config c = parse("server:\n  listen: 127.0.0.1:9531\n");
        ReloadPlan token = ReloadPlan.of(c, parse("server:\n  listen: 127.0.0.1:9531\n  auth_token: abcdefgh12345678\n"), 9531);
        assertThat(token.listener()).isTrue();
        assertThat(token.sameAddress()).isTrue();
        ReloadPlan moved = ReloadPlan.of(c, parse("server:\n  listen: 127.0.0.1:9532\n"), 9531);
        assertThat(moved.listener()).isTrue();
        assertThat(moved.sameAddress()).isFalse();
        // A config with port 0 got a port at start: the running listener holds that one, not 0.
        Config any = parse("server:\n  listen: 127.0.0.1:0\n");
        ReloadPlan fromAny = ReloadPlan.of(any, parse("server:\n  listen: 127.0.0.1:40000\n"), 40000);
        assertThat(fromAny.sameAddress()).isTrue();
    }

    @Test
    void aNewBaselineFileReopensTheStoreWithNewRules() throws Exception {
        Config c = parse("alerts:\n  baseline:\n    file: /tmp/a.json\n");
        ReloadPlan plan = ReloadPlan.of(c, parse("alerts:\n  baseline:\n    file: /tmp/b.json\n"), 9531);
        assertThat(plan.rules()).isTrue();
        assertThat(plan.baselines()).isTrue();
        ReloadPlan retention = ReloadPlan.of(c, parse("alerts:\n  baseline:\n    file: /tmp/a.json\n  resolved_retention: 1h\n"), 9531);
        assertThat(retention.rules()).isTrue();
        assertThat(retention.baselines()).isFalse();
        assertThat(retention.otlp()).isFalse();
    }
}
