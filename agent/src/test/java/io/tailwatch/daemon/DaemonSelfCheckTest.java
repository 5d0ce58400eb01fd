package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.selfcheck.CrashingProbes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon starts only the samplers whose native probe did not crash the self-check's child. */
class DaemonSelfCheckTest {
    @TempDir
    Path data;

    @Test
    void aSamplerWhoseProbeSegfaultsTheChildIsReportedAndNeverRun() throws Exception {
        AtomicInteger crashing = new AtomicInteger();
        AtomicInteger fine = new AtomicInteger();
        List<Sampler> samplers = List.of(CrashingProbes.sampler("power", "segv", crashing), CrashingProbes.sampler("memory", "ok", fine));
        try (Daemon d = new Daemon(DaemonTest.config("1s", "1s"), Map.of("TAILWATCH_DATA_DIR", data.toString()), samplers)
                .withNativeProbes(CrashingProbes.class.getName()).start()) {
            await().atMost(Duration.ofSeconds(40)).until(() -> fine.get() >= 2);
            String metrics = DaemonTest.get(d, "/metrics").body();
            assertThat(metrics).contains("tailwatch_sampler_state{tailwatch_sampler_name=\"power\",tailwatch_sampler_status=\"crashed\"} 1")
                    .contains("tailwatch_sampler_state{tailwatch_sampler_name=\"memory\",tailwatch_sampler_status=\"running\"} 1");
            String status = DaemonTest.get(d, "/api/v1/status").body().replace(" ", "");
            assertThat(status).contains("native_self_check").contains("\"probe\":\"segv\"").contains("\"status\":\"crashed\"")
                    .contains("SIGSEGV");
            assertThat(crashing).hasValue(0);
        }
        assertThat(Files.readString(data.resolve("native-selfcheck.json"))).contains("\"segv\"").contains("crashed");
    }
}
