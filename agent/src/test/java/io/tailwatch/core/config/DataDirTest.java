package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one data directory: every state file (history.db, baselines.json) follows the same rule. */
class DataDirTest {

    @Test
    void platformDefaults() {
        assertThat(DataDir.of(Map.of(), "Mac OS X", "/Users/ana"))
                .isEqualTo(Path.of("/Users/ana/Library/Application Support/tailwatch"));
        assertThat(DataDir.of(Map.of(), "Linux", "/home/ana")).isEqualTo(Path.of("/home/ana/.local/share/tailwatch"));
        assertThat(DataDir.of(Map.of("XDG_DATA_HOME", "/data"), "Linux", "/home/ana"))
                .isEqualTo(Path.of("/data/tailwatch"));
        // XDG_DATA_HOME counts on Linux only, and only as an absolute path.
        assertThat(DataDir.of(Map.of("XDG_DATA_HOME", "/data"), "Mac OS X", "/Users/ana"))
                .isEqualTo(Path.of("/Users/ana/Library/Application Support/tailwatch"));
        assertThat(DataDir.of(Map.of("XDG_DATA_HOME", "data"), "Linux", "/home/ana"))
                .isEqualTo(Path.of("/home/ana/.local/share/tailwatch"));
    }

    @Test
    void homeComesFromTheEnvironmentWhenAbsolute() {
        assertThat(DataDir.of(Map.of("HOME", "/home/op"), "Linux", "/home/jvm"))
                .isEqualTo(Path.of("/home/op/.local/share/tailwatch"));
        assertThat(DataDir.of(Map.of("HOME", "relative"), "Linux", "/home/jvm"))
                .isEqualTo(Path.of("/home/jvm/.local/share/tailwatch"));
    }

    @Test
    void theVariableWinsOnEveryPlatform() {
        Map<String, String> env = Map.of(DataDir.ENV, "/srv/tw", "XDG_DATA_HOME", "/data", "HOME", "/home/op");
        assertThat(DataDir.of(env, "Linux", "/h")).isEqualTo(Path.of("/srv/tw"));
        assertThat(DataDir.of(env, "Mac OS X", "/h")).isEqualTo(Path.of("/srv/tw"));
        assertThat(DataDir.of(Map.of(DataDir.ENV, "  ", "HOME", "/home/op"), "Linux", "/h"))
                .isEqualTo(Path.of("/home/op/.local/share/tailwatch"));
    }

    /** baselines.json used to stay in the platform default while history.db moved with TAILWATCH_DATA_DIR. */
    @Test
    void theBaselinesFollowTheVariable() throws Exception {
        Map<String, String> env = Map.of(DataDir.ENV, "/srv/tw", "HOME", "/home/op");
        assertThat(Config.parse("", "empty", env).alerts().baselineFile()).isEqualTo(Path.of("/srv/tw/baselines.json"));
    }

    @Test
    void withoutTheVariableTheBaselinesSitInThePlatformDefault() throws Exception {
        Map<String, String> env = Map.of("HOME", "/home/op", "XDG_DATA_HOME", "/data");
        assertThat(Config.parse("", "empty", env).alerts().baselineFile())
                .isEqualTo(DataDir.of(env).resolve("baselines.json"));
        assertThat(Config.parse("alerts:\n  baseline:\n    file: /var/tw/b.json\n", "file", env).alerts().baselineFile())
                .isEqualTo(Path.of("/var/tw/b.json"));
    }
}
