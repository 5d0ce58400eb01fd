package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.tools.history.History;
import io.tailwatch.tools.history.RunRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class HistoryCommandTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        return run(TailwatchCommand.commandLine(), args);
    }

    /** Runs a command line with its output and error writers captured (the commands print nowhere else). */
    static Run run(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void lists_runs_newest_first_with_filters() throws Exception {
        Path db = dir.resolve("history.db");
        Instant t = Instant.parse("2026-11-29T08:00:00Z");
        try (History h = History.open(db)) {
            h.record(List.of(
                    new RunRecord(0, "ladder", t, t.plusSeconds(90), "studio-1", "mlx", "gemma", 3.67, "s", "p95_ratio at 2", "{}"),
                    new RunRecord(0, "bench", t.plusSeconds(3600), t.plusSeconds(3700), "studio-1", "ollama", "qwen3:14b",
                            41.25, "tok/s", "stable", "{\"engines\":[]}")));
        }
        Run all = run("history", "--history-db", db.toString());
        assertThat(all.code()).isZero();
        String[] lines = all.out().split("\n");
        assertThat(lines[0]).contains("kind").contains("headline");
        assertThat(lines[1]).contains("bench").contains("qwen3:14b").contains("41.25 tok/s").contains("stable");
        assertThat(lines[2]).contains("ladder").contains("3.67 s").contains("p95_ratio at 2")
                .contains("2026-11-29 08:00:00Z");

        Run mlx = run("history", "--history-db", db.toString(), "--engine", "mlx", "--json");
        assertThat(mlx.code()).isZero();
        assertThat(mlx.out()).contains("\"kind\" : \"ladder\"").doesNotContain("qwen3");

        Run none = run("history", "--history-db", db.toString(), "--model", "nope");
        assertThat(none.out()).contains("no matching runs");
    }

    @Test
    void bad_options_and_damaged_files_are_explained() throws Exception {
        assertThat(run("history", "--kind", "weekly", "--history-db", dir.resolve("h.db").toString()).code()).isEqualTo(2);
        Run missing = run("history", "--history-db", dir.resolve("absent.db").toString());
        assertThat(missing.code()).isZero();
        assertThat(missing.out()).contains("no history yet");
        Path bad = dir.resolve("bad.db");
        Files.writeString(bad, "garbage ".repeat(600));
        Run damaged = run("history", "--history-db", bad.toString());
        assertThat(damaged.code()).isEqualTo(1);
        assertThat(damaged.err()).contains("damaged").contains(bad.toString());
    }
}
