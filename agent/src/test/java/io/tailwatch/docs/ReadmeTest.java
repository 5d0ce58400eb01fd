package io.tailwatch.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.units.Units;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * README.md's list of alert rules is the declarations' own: the block between its rules markers equals
 * {@link #rulesTable()}. When a rule is added or changed, run this test with
 * {@code -Dtailwatch.updateReadme=true} (it rewrites the block) or paste the table it prints.
 */
class ReadmeTest {
    private static final String BEGIN = "<!-- rules: held equal to the declarations by ReadmeTest -->\n";
    private static final String END = "<!-- /rules -->";

    static Path root() {
        return Path.of(System.getProperty("tailwatch.root", ".."));
    }

    /** One row a rule, in the declared order: its name, severity, default threshold and `for`, and summary. */
    static String rulesTable() {
        StringBuilder b = new StringBuilder("| rule | severity | default threshold, for | summary |\n|---|---|---|---|\n");
        for (RuleDef r : Rules.ALL) {
            String threshold = r.hasThreshold() ? r.thresholdKind().format(r.defaultThreshold()) : "-";
            String summary = r.summary().replace("{threshold}", threshold).replace("{for}", Units.format(r.defaultFor()))
                    .replace("|", "\\|");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{(\\w+)}").matcher(summary);
            summary = m.replaceAll(x -> x.group(1).toUpperCase(java.util.Locale.ROOT));
            b.append("| `").append(r.name()).append("` | ").append(r.severity().name().toLowerCase(java.util.Locale.ROOT))
                    .append(" | ").append(threshold).append(", ").append(Units.format(r.defaultFor())).append(" | ")
                    .append(summary).append(" |\n");
        }
        return b.toString();
    }

    @Test
    void theReadmeListsExactlyTheDeclaredRules() throws Exception {
        String readme = Files.readString(root().resolve("README.md"), StandardCharsets.UTF_8);
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        assertThat(begin).as("README.md has the rules markers").isNotNegative();
        assertThat(end).isGreaterThan(begin);
        if (Boolean.getBoolean("tailwatch.updateReadme")) {
            readme = readme.substring(0, begin + BEGIN.length()) + rulesTable() + readme.substring(end);
            Files.writeString(root().resolve("README.md"), readme, StandardCharsets.UTF_8);
            end = readme.indexOf(END);
        }
        String block = readme.substring(begin + BEGIN.length(), end);
        assertThat(block).as("README.md's rules table (paste the expected text between the markers)").isEqualTo(rulesTable());
        // No count of rules in words or digits anywhere that could drift from the table.
        assertThat(readme).doesNotContainPattern("(?i)\\b(\\d+|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen) alert rules");
    }
}
