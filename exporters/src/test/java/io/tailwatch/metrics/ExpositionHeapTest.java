package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The exposition at its bounds fits the shipped heap (launchd/jvm.options: 24 MiB) beside the agent's live set. */
class ExpositionHeapTest {
    @Test
    void theHubFullToItsBoundsRendersInTheShippedHeap() throws Exception {
        List<String> cmd = javaWithDaemonFlags();
        assertThat(cmd).contains("-Xmx24m", "-XX:+ExitOnOutOfMemoryError");
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), FillToBound.class.getName(),
                // The agent's own live set is about 6 MiB (docs/performance.md), more beside 32 engines; 10 MiB of
                // ballast stands in for it (13 MiB still fits with its widest labels, 14 MiB does not).
                "10"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("largest=");
        long largest = Long.parseLong(out.replaceAll("(?s).*largest=(\\d+).*", "$1"));
        assertThat(largest).isLessThanOrEqualTo(MetricHub.Limits.DEFAULT.maxExpositionBytes());
        assertThat(largest).isGreaterThan(MetricHub.Limits.DEFAULT.maxExpositionBytes() / 2);
        System.out.println("exposition at the bound in the shipped heap: " + out.strip());
    }

    /** This JVM's java with the daemon's flags as launchd/jvm.options ships them, one argument a line. */
    static List<String> javaWithDaemonFlags() throws java.io.IOException {
        Path root = Path.of(System.getProperty("tailwatch.root", ".."));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String line : Files.readAllLines(root.resolve("launchd/jvm.options"))) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("#")) {
                cmd.add(l);
            }
        }
        return cmd;
    }
}
