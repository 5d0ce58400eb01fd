package io.tailwatch.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogGuardTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicLong clock = new AtomicLong();
    private final LogGuard guard = new LogGuard(new PrintStream(bytes, true, StandardCharsets.UTF_8), 5, 60,
            TimeUnit.SECONDS, clock::get);

    private List<String> lines() {
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static String event(String msg) {
        return "2026-11-30T11:00:00.000Z [WARN] HttpParser - " + msg;
    }

    @Test
    void aLineBreakInsideAValueCannotForgeALine() {
        guard.println(event("engine e1 is up (openai 1.0\n2026-11-30T11:00:00.000Z [ERROR] Daemon - forged)"));
        assertThat(lines()).hasSize(1);
        assertThat(lines().get(0)).contains("1.0\\n2026").endsWith("forged)");
        assertThat(LogGuard.value("a\r\nb\u001b[31m")).isEqualTo("a\\r\\nb\\u001b[31m");
    }

    @Test
    void twoThousandRepeatsBecomeAFewLinesAndASummary() {
        for (int i = 0; i < 2_000; i++) {
            guard.println(event("bad HTTP parsed: 400 Duplicate Host Header from /127.0.0.1:" + (40_000 + i)));
            guard.println("org.eclipse.jetty.http.BadMessageException: 400: Duplicate Host Header");
            guard.println("\tat org.eclipse.jetty.http.HttpParser.parseFields(HttpParser.java:1234)");
        }
        assertThat(lines()).hasSize(5 * 3);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(61));
        guard.println(event("bad HTTP parsed: 400 Duplicate Host Header from /127.0.0.1:1"));
        assertThat(lines()).hasSize(5 * 3 + 2);
        assertThat(lines().get(15)).contains("1995 more line(s) like").contains("suppressed");
        assertThat(guard.suppressedTotal()).isEqualTo(1_995);
    }

    /**
     * 5,000 warnings of one logger, each a new shape (the attacker's letters vary, not its digits): at
     * most SOURCE_BURST of them are written, the start-up lines before them stay, another logger's warning
     * still passes, and the next window says how many were held back.
     */
    @Test
    void variedTextFromOneSourceIsBoundedAsASource() {
        guard.println("2026-11-30T11:00:00.000Z [INFO] Daemon - listening on 127.0.0.1:9531");
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < 5_000; i++) {
            StringBuilder junk = new StringBuilder();
            for (int k = 0; k < 12; k++) {
                junk.append((char) ('a' + r.nextInt(26)));
            }
            guard.println(event("bad HTTP parsed: 400 Illegal character in Host: " + junk));
        }
        guard.println("2026-11-30T11:00:00.000Z [WARN] EngineWatch - engine e1 is down");
        assertThat(lines()).hasSize(1 + LogGuard.SOURCE_BURST + 1);
        assertThat(lines().get(0)).contains("listening on");
        assertThat(lines().get(lines().size() - 1)).contains("engine e1 is down");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(61));
        guard.println(event("bad HTTP parsed: 400 Illegal character in Host: x"));
        assertThat(String.join("\n", lines())).contains((5_000 - LogGuard.SOURCE_BURST) + " more line(s) from [WARN] HttpParser");
    }

    @Test
    void differentMessagesAreNotHeldBackByEachOther() {
        for (int i = 0; i < 20; i++) {
            guard.println(event("engine e" + (char) ('a' + i) + " is down"));
        }
        assertThat(lines()).hasSize(20);
    }

    @Test
    void stackTracesAndLinesAreCut() {
        guard.println(event("failed"));
        for (int i = 0; i < 100; i++) {
            guard.println("\tat x.Y.z(Y.java:" + i + ")");
        }
        assertThat(lines()).hasSize(1 + LogGuard.MAX_TRACE_LINES + 1);
        guard.println(event("x".repeat(100_000)));
        assertThat(lines().get(lines().size() - 1).length()).isLessThan(LogGuard.MAX_LINE_CHARS + 100);
    }
}
