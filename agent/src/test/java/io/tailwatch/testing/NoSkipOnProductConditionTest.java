package io.tailwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No test in the project can pass by skipping: every assumption is about the platform or a tool
 * that CI requires (see {@link SkipCheck}). The checker itself is shown to catch the bad cases.
 */
class NoSkipOnProductConditionTest {
    static final Path ROOT = Path.of(System.getProperty("tailwatch.root", ".."));
    /** This guard's own sources quote the bad cases on purpose. */
    static final List<String> SELF = List.of("SkipCheck.java", "NoSkipOnProductConditionTest.java");

    @Test
    void noTestSkipsOnAProductCondition() throws IOException {
        List<Path> roots = new ArrayList<>();
        for (String module : List.of("agent/src/test/java", "exporters/src/test/java", "bench/jmh/src", "bench/lab")) {
            Path r = ROOT.resolve(module);
            if (Files.isDirectory(r)) {
                roots.add(r);
            }
        }
        assertThat(roots).as("test source roots under " + ROOT.toAbsolutePath()).contains(ROOT.resolve("agent/src/test/java"));
        List<String> violations = new ArrayList<>();
        int files = 0;
        int assumptions = 0;
        for (Path root : roots) {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path f : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (SELF.contains(f.getFileName().toString())) {
                        continue;
                    }
                    files++;
                    String source = Files.readString(f);
                    assumptions += source.split("assumeTrue\\(|assumeFalse\\(", -1).length - 1;
                    List<String> found = SkipCheck.violations(ROOT.relativize(f).toString(), source);
                    violations.addAll(found);
                }
            }
        }
        assertThat(files).as("test sources scanned").isGreaterThan(100);
        // The platform and tool assumptions that are allowed exist, so the scan did look at calls.
        assertThat(assumptions).as("assumptions seen").isPositive();
        assertThat(violations).isEmpty();
    }

    @Test
    void anAssumptionOnAProductSeriesIsReported() {
        String bad = """
                class AlertsIT {
                    private void assumeEngineMonitor() {
                        boolean present = metrics().contains("tailwatch_engine_up{");
                        assumeTrue(present, "engine monitor not built in");
                    }
                }
                """;
        assertThat(SkipCheck.violations("AlertsIT.java", bad)).singleElement().asString()
                .startsWith("AlertsIT.java:4: assumeTrue(present)").contains("product condition");
    }

    @Test
    void aRequireVariableInAnotherMethodDoesNotExcuseASkip() {
        String bad = """
                class T {
                    static boolean required() {
                        return "1".equals(System.getenv("TAILWATCH_REQUIRE_LLAMA"));
                    }

                    @Test
                    void engine() {
                        Assumptions.assumeFalse(engineSeries().isEmpty(), "late");
                    }
                }
                """;
        assertThat(SkipCheck.violations("T.java", bad)).singleElement().asString().startsWith("T.java:8: assumeFalse(engineSeries().isEmpty())");
    }

    @Test
    void disabledConditionalAndAbortingTestsAreReported() {
        String bad = """
                class T {
                    @Disabled("flaky")
                    @Test void a() { }
                    @EnabledIfSystemProperty(named = "engine", matches = "up")
                    @Test void b() { }
                    @Test void c() { Assumptions.abort("later"); }
                    @Test void d() { assumingThat(up(), () -> check()); }
                    @Test void e() { throw new TestAbortedException("no"); }
                }
                """;
        assertThat(SkipCheck.violations("T.java", bad)).hasSize(5)
                .anySatisfy(v -> assertThat(v).startsWith("T.java:2: @Disabled"))
                .anySatisfy(v -> assertThat(v).startsWith("T.java:4: @EnabledIfSystemProperty"))
                .anySatisfy(v -> assertThat(v).startsWith("T.java:6: abort"))
                .anySatisfy(v -> assertThat(v).startsWith("T.java:7: assumingThat"))
                .anySatisfy(v -> assertThat(v).startsWith("T.java:8: TestAbortedException"));
    }

    @Test
    void platformAndRequiredToolAssumptionsPass() {
        String good = """
                @EnabledOnOs(OS.MAC)
                @EnabledIfSystemProperty(named = "os.arch", matches = "aarch64|arm64")
                class T {
                    // assumeTrue(metricsArePresent()) in a comment is not a call
                    String text = "assumeTrue(inside a string)";

                    @Test
                    void linuxOnly() {
                        assumeFalse(System.getProperty("os.name").toLowerCase().contains("mac"));
                        Assumptions.assumeTrue(uid == 0, "needs root");
                    }

                    static Path tool() {
                        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
                            throw new AssertionError("promtool is required");
                        }
                        assumeTrue(false, "promtool not installed");
                        return null;
                    }
                }
                """;
        assertThat(SkipCheck.violations("T.java", good)).isEmpty();
    }

    @Test
    void theConditionIsTheFirstArgumentWithItsParenthesesAndStrings() {
        String code = "assumeTrue(a(b, \"x,)\") && c[1] > 0, \"why\");";
        assertThat(SkipCheck.firstArgument(code, "assumeTrue(".length())).isEqualTo("a(b, \"x,)\") && c[1] > 0");
    }
}
