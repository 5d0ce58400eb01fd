package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressTest {
    @Test
    void plain_lines_carry_count_elapsed_eta_and_figures_and_are_rate_limited() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        io.tailwatch.testing.SimClock clock = new io.tailwatch.testing.SimClock();
        Progress p = new Progress.Lines(new PrintStream(buf, true, StandardCharsets.UTF_8), clock, Duration.ofSeconds(5));
        p.begin("level 4", 12);
        p.update(0, "");
        clock.advance(Duration.ofSeconds(3));
        p.update(3, "p95 2.10 s, 0 errors");   // first request line: printed
        clock.advance(Duration.ofSeconds(1));
        p.update(4, "p95 2.20 s, 0 errors");   // 1 s later: held back
        clock.advance(Duration.ofSeconds(5));
        p.update(6, "p95 2.30 s, 1 error");    // 5 s later: printed, ETA = 9 s x 6/6
        p.update(12, "p95 2.40 s, 1 error");   // the last one: always printed
        p.line("concurrency 4: done");
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(out.lines()).containsExactly(
                "level 4: started, 12 requests",
                "level 4: request 3 of 12, elapsed 0:00:03, ETA 0:00:09, p95 2.10 s, 0 errors",
                "level 4: request 6 of 12, elapsed 0:00:09, ETA 0:00:09, p95 2.30 s, 1 error",
                "level 4: request 12 of 12, elapsed 0:00:09, ETA 0:00:00, p95 2.40 s, 1 error",
                "concurrency 4: done");
    }

    @Test
    void the_terminal_bar_shows_task_count_and_figures_and_a_line_goes_below_it() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Progress p = new Progress.Bar(new PrintStream(buf, true, StandardCharsets.UTF_8), 120);
        p.begin("level 2", 6);
        p.update(3, "p95 1.35 s, 0 errors");
        p.line("concurrency 2: 6/6 requests");
        String out = buf.toString(StandardCharsets.UTF_8);
        // The bar redraws in place with carriage returns; its last frame is kept, then the line follows.
        String[] frames = out.split("\r");
        String last = frames[frames.length - 1];
        assertThat(last).contains("level 2").contains("3/6").contains("p95 1.35 s, 0 errors")
                .endsWith("\nconcurrency 2: 6/6 requests\n");
    }

    @Test
    void quiet_prints_nothing() {
        Progress p = Progress.forStderr(true, new java.io.PrintWriter(new java.io.StringWriter()));
        assertThat(p).isSameAs(Progress.NONE);
    }

    @Test
    void clock_format() {
        assertThat(Progress.clock(Duration.ofSeconds(3725))).isEqualTo("1:02:05");
    }

    @Test
    void the_stream_onto_a_writer_passes_on_redraws_without_a_line_end_and_whole_characters_only() {
        java.io.StringWriter text = new java.io.StringWriter();
        PrintStream s = Progress.stream(new java.io.PrintWriter(text));
        s.print("\rlevel 1 3/6");
        assertThat(text.toString()).isEqualTo("\rlevel 1 3/6");
        byte[] e = "\u00e9".getBytes(StandardCharsets.UTF_8); // two bytes
        s.write(e, 0, 1);
        assertThat(text.toString()).isEqualTo("\rlevel 1 3/6");
        s.write(e, 1, 1);
        assertThat(text.toString()).isEqualTo("\rlevel 1 3/6\u00e9");
        assertThat(Progress.endsOnWholeCharacter("\u20ac".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(Progress.endsOnWholeCharacter(java.util.Arrays.copyOf("\u20ac".getBytes(StandardCharsets.UTF_8), 2)))
                .isFalse();
    }
}
