package io.tailwatch.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CappedLogFileTest {
    @Test
    void theLogNeverTakesMoreThanTwiceItsCap(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("tailwatch.err.log");
        long cap = 64 * 1024;
        try (PrintStream out = new PrintStream(new CappedLogFile(log, cap), true, StandardCharsets.UTF_8)) {
            for (int i = 0; i < 20_000; i++) {
                out.println("2026-11-30T11:00:00.000Z [WARN] HttpParser - line " + i);
                assertThat(Files.size(log)).isLessThanOrEqualTo(cap);
            }
        }
        Path older = dir.resolve("tailwatch.err.log.1");
        assertThat(Files.size(older)).isLessThanOrEqualTo(cap).isGreaterThan(cap / 2);
        assertThat(Files.readString(log)).endsWith("line 19999\n");
        // A second writer appending to the same file (launchd's stderr) lands at the new end after a truncation.
        try (var other = Files.newOutputStream(log, java.nio.file.StandardOpenOption.APPEND)) {
            other.write("jvm says\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Files.readString(log)).endsWith("line 19999\njvm says\n");
    }
}
