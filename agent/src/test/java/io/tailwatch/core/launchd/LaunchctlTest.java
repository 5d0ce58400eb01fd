package io.tailwatch.core.launchd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.testing.RecordingLaunchctl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchctlTest {
    @TempDir
    Path dir;

    @Test
    void runs_the_launchctl_on_path_with_the_exact_arguments() throws Exception {
        RecordingLaunchctl fake = new RecordingLaunchctl(dir);
        Launchctl l = new Launchctl(Map.of("PATH", fake.path()));
        assertThat(l.executable()).isEqualTo(fake.bin().resolve("launchctl"));
        assertThat(l.bootstrap("gui/501", Path.of("/Users/a b/x.plist")).ok()).isTrue();
        l.bootout("gui/501/io.tailwatch.agent");
        l.print("gui/501/io.tailwatch.agent");
        Launchctl.Result r = l.kickstart("gui/501/com.example.mlx");
        assertThat(r.commandLine()).isEqualTo("launchctl kickstart -k gui/501/com.example.mlx");
        assertThat(fake.calls()).containsExactly(
                List.of("bootstrap", "gui/501", "/Users/a b/x.plist"),
                List.of("bootout", "gui/501/io.tailwatch.agent"),
                List.of("print", "gui/501/io.tailwatch.agent"),
                List.of("kickstart", "-k", "gui/501/com.example.mlx"));
    }

    @Test
    void reports_exit_code_and_output() throws Exception {
        RecordingLaunchctl fake = new RecordingLaunchctl(dir);
        fake.exitWith(113, "Could not find service \"io.tailwatch.agent\" in domain for port\n");
        Launchctl.Result r = new Launchctl(Map.of("PATH", fake.path())).print("gui/501/io.tailwatch.agent");
        assertThat(r.ok()).isFalse();
        assertThat(r.exitCode()).isEqualTo(113);
        assertThat(r.output()).contains("Could not find service");
    }

    @Test
    void a_hung_launchctl_is_stopped_at_the_deadline() throws Exception {
        RecordingLaunchctl fake = new RecordingLaunchctl(dir);
        fake.sleepSeconds(30);
        Launchctl.Result r = new Launchctl(Map.of("PATH", fake.path()), Duration.ofMillis(300)).print("system/x");
        assertThat(r.exitCode()).isEqualTo(-1);
        assertThat(r.output()).contains("did not finish within 300 ms");
    }

    @Test
    void missing_launchctl_is_a_clear_error() {
        Launchctl l = new Launchctl(Map.of("PATH", dir.toString()));
        assertThatThrownBy(l::executable).isInstanceOf(Launchctl.NotFound.class)
                .hasMessageContaining("launchctl not found on PATH").hasMessageContaining("macOS");
    }
}
