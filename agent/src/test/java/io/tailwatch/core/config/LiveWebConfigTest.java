package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.TestCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live edit of the web config that would drop basic auth while a listener it guards is reachable from
 * other hosts is refused and the running config stays; on loopback the same edit is applied.
 */
class LiveWebConfigTest {
    @TempDir
    static Path dir;
    static String hash;

    @BeforeAll
    static void hash() throws Exception {
        hash = TestCerts.bcrypt("pw");
    }

    private static Path withUsers(String name, String... users) throws Exception {
        Path f = dir.resolve(name);
        StringBuilder yaml = new StringBuilder("basic_auth_users:\n");
        for (String u : users) {
            yaml.append("  ").append(u).append(": '").append(hash).append("'\n");
        }
        Files.writeString(f, yaml);
        return f;
    }

    /** Rewrites the file; a different size makes the change visible whatever the clock's resolution. */
    private static void rewrite(Path f, String yaml) throws Exception {
        long before = Files.size(f);
        Files.writeString(f, yaml);
        assertThat(Files.size(f)).isNotEqualTo(before);
    }

    @Test
    void droppingBasicAuthUnderAnExposedListenerIsRefusedAndTheRunningConfigStays() throws Exception {
        Path f = withUsers("exposed.yml", "prometheus");
        LiveWebConfig live = LiveWebConfig.load(f, () -> true);
        assertThat(live.current().users()).containsOnlyKeys("prometheus");

        rewrite(f, "# basic_auth_users removed\n");
        assertThat(live.current().basicAuth()).as("still authenticated").isTrue();
        assertThat(live.current().users()).containsOnlyKeys("prometheus");

        // A later edit that keeps authentication is applied.
        rewrite(f, "basic_auth_users:\n  grafana: '" + hash + "'\n");
        assertThat(live.current().users()).containsOnlyKeys("grafana");
    }

    @Test
    void onLoopbackTheSameEditIsApplied() throws Exception {
        Path f = withUsers("loopback.yml", "prometheus");
        LiveWebConfig live = LiveWebConfig.load(f, () -> false);
        rewrite(f, "# basic_auth_users removed\n");
        assertThat(live.current().basicAuth()).isFalse();
        assertThat(LiveWebConfig.load(withUsers("default.yml", "a")).current().basicAuth()).isTrue();
    }

    @Test
    void exposureIsJudgedWhenTheChangeIsRead() throws Exception {
        Path f = withUsers("toggle.yml", "prometheus");
        AtomicBoolean exposed = new AtomicBoolean(false);
        LiveWebConfig live = LiveWebConfig.load(f, exposed::get);
        exposed.set(true); // e.g. a proxy moved off loopback by a config reload
        rewrite(f, "# none\n");
        assertThat(live.current().basicAuth()).isTrue();
    }

    @Test
    void theDecisionTakesTheListenersExposureAndBothConfigs() throws Exception {
        WebConfig auth = WebConfig.load(withUsers("a.yml", "prometheus"));
        Path open = dir.resolve("open.yml");
        Files.writeString(open, "# no users\n");
        WebConfig none = WebConfig.load(open);
        assertThat(LiveWebConfig.refusal(auth, none, true)).contains("basic_auth_users").contains("reachable from other hosts");
        assertThat(LiveWebConfig.refusal(auth, none, false)).isNull();
        assertThat(LiveWebConfig.refusal(auth, auth, true)).isNull();
        // Already open (config check warned at start): the edit changes nothing about exposure.
        assertThat(LiveWebConfig.refusal(none, none, true)).isNull();
        assertThat(LiveWebConfig.refusal(none, auth, true)).isNull();
    }
}
