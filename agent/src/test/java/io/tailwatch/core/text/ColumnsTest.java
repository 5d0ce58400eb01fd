package io.tailwatch.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnsTest {
    /** Two CJK ideographs, a llama emoji (a surrogate pair), an e with a combining acute accent. */
    static final String WIDE = "通义🦙e\u0301";

    @Test
    void widthIsTerminalColumnsNotChars() {
        assertThat(Columns.width("qwen")).isEqualTo(4);
        assertThat(Columns.width("通义千问")).isEqualTo(8);
        assertThat(Columns.width("🦙")).as("one emoji, two chars").isEqualTo(2);
        assertThat("🦙").hasSize(2);
        assertThat(Columns.width("e\u0301")).as("a combining mark takes no column").isEqualTo(1);
        assertThat(Columns.width(WIDE)).isEqualTo(7);
        assertThat(Columns.width("한국어")).isEqualTo(6);
        // What the command line's writer shows for an escape character: \u001b, six columns.
        assertThat(Columns.width("a\u001bb")).isEqualTo(8);
    }

    @Test
    void paddingCountsColumns() {
        assertThat(Columns.padRight("通义", 6)).isEqualTo("通义  ");
        assertThat(Columns.padLeft("🦙", 4)).isEqualTo("  🦙");
        assertThat(Columns.padRight("e\u0301", 3)).isEqualTo("e\u0301  ");
        assertThat(Columns.padRight("通义千问", 4)).as("wider: unchanged").isEqualTo("通义千问");
    }

    @Test
    void cuttingNeverSplitsAWideCharacterOrAMarkFromItsBase() {
        assertThat(Columns.cut("ab通c", 3)).as("the ideograph would cross the edge").isEqualTo("ab");
        assertThat(Columns.cut("ab通c", 4)).isEqualTo("ab通");
        assertThat(Columns.cut("a🦙", 2)).isEqualTo("a");
        assertThat(Columns.cut("a🦙", 3)).isEqualTo("a🦙");
        assertThat(Columns.cut("e\u0301x", 1)).isEqualTo("e\u0301");
        assertThat(Columns.fit("通义千问-72B-Instruct", 10, "...")).isEqualTo("通义千...").satisfies(
                s -> assertThat(Columns.width(s)).isEqualTo(9));
        assertThat(Columns.fit("qwen", 10, "...")).isEqualTo("qwen");
        for (int w = 0; w <= 12; w++) {
            String c = Columns.cut(WIDE + WIDE, w);
            assertThat(Columns.width(c)).isLessThanOrEqualTo(w);
            assertThat(Character.isHighSurrogate(c.isEmpty() ? 'x' : c.charAt(c.length() - 1))).isFalse();
        }
    }

    @Test
    void wrappedTextStaysWithinTheWidthInColumns() {
        // 30 ideographs without a space: broken at the width in columns, whole characters only.
        String model = "通".repeat(30);
        String out = TextFit.pieces("ENGINE  ", List.of(model, "🦙🦙🦙 llama"), "  ", 20);
        assertThat(out.lines()).allSatisfy(l -> assertThat(Columns.width(l)).as(l).isLessThanOrEqualTo(20));
        assertThat(out.replace("\n", "").replace(" ", "")).contains("通".repeat(6)).contains("🦙🦙🦙");
        assertThat(out.chars().filter(c -> c == '通').count()).isEqualTo(30);
        String line = TextFit.line("  " + "模型".repeat(12) + " value 1", "    ", 30);
        assertThat(line.lines()).hasSizeGreaterThan(1)
                .allSatisfy(l -> assertThat(Columns.width(l)).as(l).isLessThanOrEqualTo(30));
    }
}
