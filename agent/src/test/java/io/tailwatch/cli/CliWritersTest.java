package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command prints through picocli's writers: with them replaced (CommandLine.setOut/setErr) the text
 * arrives there and nothing reaches System.out or System.err. Cheap paths only (usage errors, local files).
 */
class CliWritersTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err, String systemOut, String systemErr) {
    }

    static Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream sysOut = new ByteArrayOutputStream();
        ByteArrayOutputStream sysErr = new ByteArrayOutputStream();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit;
        try {
            System.setOut(new PrintStream(sysOut, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(sysErr, true, StandardCharsets.UTF_8));
            CommandLine cl = TailwatchCommand.commandLine();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            exit = cl.execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Run(exit, out.toString(), err.toString(), sysOut.toString(StandardCharsets.UTF_8),
                sysErr.toString(StandardCharsets.UTF_8));
    }

    /** Runs {@code args}, expects {@code exit}, {@code text} on the writer named {@code where}, and nothing on System.out/err. */
    static void expect(int exit, String where, String text, String... args) {
        Run r = run(args);
        String desc = String.join(" ", args) + " -> " + r;
        assertThat(r.exit()).as(desc).isEqualTo(exit);
        assertThat(where.equals("out") ? r.out() : r.err()).as(desc).contains(text);
        assertThat(r.systemOut()).as(desc).isEmpty();
        assertThat(r.systemErr()).as(desc).isEmpty();
    }

    @Test
    void reports_and_listings_go_to_the_out_writer() {
        expect(0, "out", "Usage: tailwatch");
        expect(0, "out", "tailwatch_", "metrics");
        expect(0, "out", "engines:", "config", "defaults");
        expect(0, "out", "RULE", "rules");
        expect(0, "out", "no history yet", "history", "--history-db", dir.resolve("absent.db").toString());
        expect(0, "out", "[]", "history", "--json", "--history-db", dir.resolve("absent.db").toString());
    }

    @Test
    void problems_go_to_the_err_writer() {
        String missing = dir.resolve("missing.yaml").toString();
        expect(2, "err", "cannot read", "config", "check", missing);
        expect(2, "err", "cannot read", "doctor", "--config", missing);
        expect(2, "err", "cannot read", "status", "--config", missing);
        expect(2, "err", "--format: expected prometheus, grafana or table", "rules", "--format", "yaml");
        expect(2, "err", "--kind must be ladder, bench or baseline", "history", "--kind", "weekly");
        expect(2, "err", "--token-file: cannot read", "diagnose", "--token-file", missing);
        expect(2, "err", "is not a loopback address", "detect", "--host", "192.0.2.1");
        expect(2, "err", "--api: must be ollama or openai", "probe", "--url", "http://127.0.0.1:1", "--api", "grpc");
        expect(2, "err", "--api: must be ollama or openai", "simulate", "--api", "grpc", "--listen", "127.0.0.1:0");
        expect(2, "err", "--listen:", "run", "--listen", "no-port-here");
        expect(2, "err", "--levels: 'x' is not a whole number", "ladder", "--url", "http://127.0.0.1:1", "--api",
                "openai", "--levels", "x");
        expect(2, "err", "--engine: no engine named 'nope'", "bench", "--engine", "nope");
        expect(2, "err", "Unknown option", "history", "--no-such-option");
    }

    @Test
    void without_replaced_writers_the_text_reaches_the_process_streams_whole() throws Exception {
        // picocli makes its writers on System.out/err; text without a line end must still be flushed
        Path bad = dir.resolve("bad.yaml");
        java.nio.file.Files.writeString(bad, "server:\n  colour: blue\n");
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream sysOut = new ByteArrayOutputStream();
        ByteArrayOutputStream sysErr = new ByteArrayOutputStream();
        int check;
        int defaults;
        try {
            System.setOut(new PrintStream(sysOut, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(sysErr, true, StandardCharsets.UTF_8));
            check = TailwatchCommand.commandLine().execute("config", "check", bad.toString());
            defaults = TailwatchCommand.commandLine().execute("config", "defaults");
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        assertThat(check).isEqualTo(2);
        assertThat(sysErr.toString(StandardCharsets.UTF_8)).isEqualTo(bad + ": line 2, column 3: server.colour: unknown key\n");
        assertThat(defaults).isZero();
        assertThat(sysOut.toString(StandardCharsets.UTF_8)).isEqualTo(io.tailwatch.core.config.Config.defaultText());
    }
}
