package io.tailwatch.tools.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryTest {
    @TempDir
    Path dir;

    static RunRecord bench(Instant at, double tps) {
        return new RunRecord(0, "bench", at, at.plusSeconds(60), "studio-1", "ollama", "qwen3:14b", tps, "tok/s",
                "stable", "{}");
    }

    @Test
    void default_locations_follow_platform_conventions() {
        assertThat(History.defaultPath(Map.of(), "Mac OS X", "/Users/ana"))
                .isEqualTo(Path.of("/Users/ana/Library/Application Support/tailwatch/history.db"));
        assertThat(History.defaultPath(Map.of("XDG_DATA_HOME", "/data"), "Linux", "/home/ana"))
                .isEqualTo(Path.of("/data/tailwatch/history.db"));
        assertThat(History.defaultPath(Map.of(), "Linux", "/home/ana"))
                .isEqualTo(Path.of("/home/ana/.local/share/tailwatch/history.db"));
        assertThat(History.defaultPath(Map.of("TAILWATCH_DATA_DIR", "/srv/tw", "XDG_DATA_HOME", "/data"), "Linux", "/h"))
                .isEqualTo(Path.of("/srv/tw/history.db"));
    }

    /** The history and the alert baselines share one data directory, moved by TAILWATCH_DATA_DIR. */
    @Test
    void history_and_baselines_share_the_data_directory() throws Exception {
        Map<String, String> env = Map.of("TAILWATCH_DATA_DIR", "/srv/tw", "HOME", "/home/op");
        Path baselines = io.tailwatch.core.config.Config.parse("", "empty", env).alerts().baselineFile();
        Path history = History.defaultPath(env, System.getProperty("os.name", ""), "/home/op");
        assertThat(history).isEqualTo(Path.of("/srv/tw/history.db"));
        assertThat(history.getParent()).isEqualTo(baselines.getParent());
    }

    @Test
    void stores_lists_and_filters_runs_across_reopen() throws Exception {
        Path db = dir.resolve("sub/history.db");
        Instant t0 = Instant.parse("2026-11-20T10:00:00Z");
        try (History h = History.open(db)) {
            List<Long> ids = h.record(List.of(
                    new RunRecord(0, "ladder", t0, t0.plusSeconds(300), "studio-1", "mlx", "gemma", 3.67, "s",
                            "p95_ratio at 2", "{\"levels\":[]}"),
                    new RunRecord(0, "baseline", t0, t0.plusSeconds(20), "studio-1", "mlx", "gemma", 3.51, "s", "ok", "{}")));
            assertThat(ids).hasSize(2).doesNotContain(-1L);
            h.record(bench(t0.plusSeconds(3600), 40.0));
        }
        try (History h = History.open(db)) {
            assertThat(h.list(null, null, null, 10)).extracting(RunRecord::kind).containsExactly("bench", "baseline", "ladder");
            assertThat(h.list("mlx", null, null, 10)).hasSize(2);
            assertThat(h.list("mlx", "gemma", "ladder", 10)).singleElement()
                    .satisfies(r -> assertThat(r.outcome()).isEqualTo("p95_ratio at 2"));
            assertThat(h.list(null, null, null, 1)).hasSize(1);
            assertThat(h.headlinesSince("bench", "ollama", "qwen3:14b", "studio-1", t0)).containsExactly(40.0);
            assertThat(h.headlinesSince("bench", "ollama", "qwen3:14b", "other-host", t0)).isEmpty();
        }
    }

    @Test
    void a_failed_batch_leaves_nothing_behind() throws Exception {
        Path db = dir.resolve("h.db");
        Instant t = Instant.now();
        try (History h = History.open(db)) {
            RunRecord bad = new RunRecord(0, "nonsense", t, t, "h", "e", "m", 1.0, "s", "x", "{}");
            assertThatThrownBy(() -> h.record(List.of(bench(t, 10), bad))).isInstanceOf(HistoryException.class)
                    .hasMessageContaining(db.toString());
            assertThat(h.list(null, null, null, 10)).isEmpty();
        }
    }

    @Test
    void a_damaged_file_gives_a_clear_error() throws Exception {
        Path db = dir.resolve("history.db");
        Files.write(db, "this is not a database, just some text that is long enough to have a header".repeat(100).getBytes());
        assertThatThrownBy(() -> History.open(db)).isInstanceOf(HistoryException.class)
                .hasMessageContaining(db.toString()).hasMessageContaining("damaged").hasMessageContaining("Move the file aside");
    }

    @Test
    void a_locked_file_gives_a_clear_error() throws Exception {
        Path db = dir.resolve("history.db");
        History.open(db).close();
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = other.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
            try (History h = History.open(db, Duration.ofMillis(100))) {
                assertThatThrownBy(() -> h.record(bench(Instant.now(), 1))).isInstanceOf(HistoryException.class)
                        .hasMessageContaining("locked");
            } catch (HistoryException e) {
                // opening may already hit the lock; that must be the same clear error
                assertThat(e).hasMessageContaining("locked");
            }
            s.execute("ROLLBACK");
        }
    }
}
