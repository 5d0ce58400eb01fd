package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench text report read as a user reads it: no "n/a W", no "-0.0 %", no "(1 runs)", cool-down between engines. */
class BenchTextTest {
    @Test
    void two_engines_without_power_read_cleanly() throws Exception {
        Bench b = new Bench(() -> BenchTest.figures(0.0, null), BenchTest.options(3, false), Clock.systemUTC(), d -> { });
        List<Bench.EngineResult> rs = b.run(List.of(
                new Bench.Target("ollama", "ollama", BenchTest.engine(BenchTest.tps(5, 0.2), BenchTest.tps(40, 0.3),
                        BenchTest.tps(40, 0.3), BenchTest.tps(40, 0.3)), "qwen3:14b", null),
                new Bench.Target("mlx", "openai", BenchTest.engine(BenchTest.tps(5, 0.2), BenchTest.tps(30, 0.3),
                        BenchTest.tps(31, 0.3), BenchTest.tps(32, 0.3)), "gemma", null)));
        // A reference just above the median: the change rounds to zero, and one past run.
        List<BenchReport.Regression> g = List.of(BenchReport.Regression.judge(40, 40.0001, 1),
                BenchReport.Regression.judge(31, 31, 2));
        String text = BenchReport.text(rs, g);

        assertThat(text).doesNotContain("n/a W").doesNotContain("-0.0").doesNotContain("(1 runs)")
                .doesNotContain("n/a %");
        assertThat(text).contains("40.0 tok/s, median of 3 runs (mean 40.0, stddev 0.00, CV 0.0 %: stable)");
        assertThat(text).contains("power: not measured (this host reports no power reading)");
        assertThat(text).contains("history: 0.0 % against the 7-day median 40.0 tok/s (1 run)");
        assertThat(text).contains("(2 runs)");
        // The cool-down line stands between the engines, naming the engine it preceded.
        List<String> lines = text.lines().toList();
        int cool = indexOf(lines, "cool-down before mlx: memory pressure normal; paused 5s");
        assertThat(cool).isGreaterThan(indexOf(lines, "ollama / qwen3:14b"));
        assertThat(cool).isLessThan(indexOf(lines, "mlx / gemma"));
    }

    @Test
    void one_run_says_it_has_no_spread_and_power_is_shown_when_known() throws Exception {
        Bench b = new Bench(() -> BenchTest.figures(0.0, 20.0), BenchTest.options(1, false), Clock.systemUTC(), d -> { });
        List<Bench.EngineResult> rs = b.run(List.of(new Bench.Target("ollama", "ollama",
                BenchTest.engine(BenchTest.tps(5, 0.2), BenchTest.tps(40, 0.3)), "m", null)));
        String text = BenchReport.text(rs, null);
        assertThat(text).contains("decode: 40.0 tok/s from 1 run; one run has no spread")
                .contains("power: median 20.0 W, 2.00 tok/s per W").doesNotContain("stddev").doesNotContain("n/a");
    }

    @Test
    void signed_percent_never_prints_minus_zero() {
        assertThat(BenchReport.signedPercent(-0.00001)).isEqualTo("0.0 %");
        assertThat(BenchReport.signedPercent(0.021)).isEqualTo("+2.1 %");
        assertThat(BenchReport.signedPercent(-0.12)).isEqualTo("-12.0 %");
    }

    @Test
    void listener_sees_the_warm_up_then_each_run() throws Exception {
        List<String> seen = new ArrayList<>();
        Bench b = new Bench(() -> BenchTest.figures(0.0, null), BenchTest.options(2, false), Clock.systemUTC(), d -> { })
                .listener(new Bench.Listener() {
                    @Override
                    public void engine(Bench.Target t, int requests) {
                        seen.add(t.engine() + " " + requests);
                    }

                    @Override
                    public void request(Bench.Target t, int done, io.tailwatch.core.probe.ProbeResult r, Bench.Run run) {
                        seen.add(done + (run == null ? " warm-up" : " run " + run.index()));
                    }
                });
        b.run(List.of(new Bench.Target("e", "openai", BenchTest.engine(BenchTest.tps(5, 0.2), BenchTest.tps(40, 0.3),
                BenchTest.tps(41, 0.3)), "m", null)));
        assertThat(seen).containsExactly("e 3", "1 warm-up", "2 run 1", "3 run 2");
    }

    private static int indexOf(List<String> lines, String line) {
        int i = lines.indexOf(line);
        assertThat(i).as("line '%s' in%n%s", line, String.join("\n", lines)).isNotNegative();
        return i;
    }
}
