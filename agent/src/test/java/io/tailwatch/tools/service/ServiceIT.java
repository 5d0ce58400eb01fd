package io.tailwatch.tools.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.dd.plist.NSArray;
import com.dd.plist.NSDictionary;
import io.tailwatch.core.kv.KvCacheMath;
import io.tailwatch.core.launchd.UserId;
import io.tailwatch.testing.RecordingLaunchctl;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tailwatch service ...` and `tailwatch engine restart` from the real jar, with a recording
 * stand-in launchctl first on PATH and TAILWATCH_HOME pointing at a temporary home.
 */
class ServiceIT {
    @TempDir
    Path dir;
    RecordingLaunchctl launchctl;
    Path home;
    Map<String, String> env;
    long uid;
    Path plist;

    @BeforeEach
    void setUp() throws Exception {
        launchctl = new RecordingLaunchctl(dir.resolve("fake"));
        home = Files.createDirectories(dir.resolve("home"));
        env = new HashMap<>(Map.of("PATH", launchctl.path(), "TAILWATCH_HOME", home.toString()));
        uid = UserId.current();
        plist = home.resolve("Library/LaunchAgents/io.tailwatch.agent.plist");
    }

    JarRun.Done tw(String... args) throws Exception {
        return JarRun.run(env, dir, args);
    }

    Path config(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    static final String ENGINES = "engines:\n"
            + "  - name: mlx\n    api: openai\n    url: http://127.0.0.1:8080\n    launchd_label: com.example.mlx\n"
            + "  - name: ollama\n    api: ollama\n    url: http://127.0.0.1:11434\n";

    @Test
    void install_writes_the_plist_and_bootstraps_it_in_the_gui_domain() throws Exception {
        Path cfg = config("tailwatch.yaml", "host:\n  interval: 5s\n");
        JarRun.Done d = tw("service", "install", "--config", cfg.toString());
        assertThat(d.exit()).as(d.err()).isZero();
        assertThat(launchctl.calls()).containsExactly(List.of("bootstrap", "gui/" + uid, plist.toString()));
        NSDictionary p = PlistText.parse(Files.readString(plist));
        assertThat(p.objectForKey("Label").toString()).isEqualTo("io.tailwatch.agent");
        List<String> args = Arrays.stream(((NSArray) p.objectForKey("ProgramArguments")).getArray()).map(Object::toString).toList();
        assertThat(args).containsSubsequence("-XX:+UseSerialGC", "-jar", JarRun.JAR.toAbsolutePath().toString(), "run",
                "--config", cfg.toAbsolutePath().toString());
        assertThat(p.objectForKey("StandardOutPath").toString()).startsWith(home.resolve("Library/Logs/tailwatch").toString());
        assertThat(home.resolve("Library/Logs/tailwatch")).isDirectory();
        assertThat(Files.getPosixFilePermissions(plist)).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(d.out()).contains("bootstrap gui/" + uid);
    }

    @Test
    void a_config_with_a_metering_proxy_gets_the_proxy_jit_flags_in_its_plist() throws Exception {
        Path plain = config("plain.yaml", ENGINES);
        Path proxied = config("proxied.yaml", ENGINES + "    proxy:\n      listen: 127.0.0.1:18435\n");
        List<String> without = programArguments(tw("service", "plist", "--config", plain.toString()));
        List<String> with = programArguments(tw("service", "plist", "--config", proxied.toString()));
        List<String> proxyFlags = JvmFlags.daemon(true).subList(JvmFlags.defaults().size(), JvmFlags.daemon(true).size());
        assertThat(proxyFlags).contains("-XX:TieredStopAtLevel=4");
        assertThat(without).containsSubsequence(JvmFlags.defaults()).doesNotContain("-XX:TieredStopAtLevel=4");
        int jar = with.indexOf("-jar");
        assertThat(with.subList(1, jar)).isEqualTo(JvmFlags.daemon(true));
        assertThat(with.subList(jar, with.size())).isEqualTo(without.subList(without.indexOf("-jar"), without.size())
                .stream().map(a -> a.equals(plain.toAbsolutePath().toString()) ? proxied.toAbsolutePath().toString() : a).toList());
    }

    private static List<String> programArguments(JarRun.Done d) throws Exception {
        assertThat(d.exit()).as(d.err()).isZero();
        NSDictionary p = PlistText.parse(d.out());
        return Arrays.stream(((NSArray) p.objectForKey("ProgramArguments")).getArray()).map(Object::toString).toList();
    }

    @Test
    void env_settings_go_into_the_plist_which_is_then_private() throws Exception {
        JarRun.Done d = tw("service", "install", "--env", "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer s3cret");
        assertThat(d.exit()).as(d.err()).isZero();
        NSDictionary p = PlistText.parse(Files.readString(plist));
        assertThat(((NSDictionary) p.objectForKey("EnvironmentVariables")).objectForKey("OTEL_EXPORTER_OTLP_HEADERS").toString())
                .isEqualTo("Authorization=Bearer s3cret");
        assertThat(Files.getPosixFilePermissions(plist)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(d.out() + d.err()).doesNotContain("s3cret");
    }

    @Test
    void a_different_existing_plist_is_replaced_only_with_force() throws Exception {
        Files.createDirectories(plist.getParent());
        Files.writeString(plist, "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>\n");
        JarRun.Done refused = tw("service", "install");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains(plist.toString()).contains("--force");
        assertThat(Files.readString(plist)).contains("<dict/>");
        assertThat(launchctl.calls()).isEmpty();

        JarRun.Done forced = tw("service", "install", "--force");
        assertThat(forced.exit()).as(forced.err()).isZero();
        assertThat(launchctl.calls()).containsExactly(
                List.of("bootout", "gui/" + uid + "/io.tailwatch.agent"),
                List.of("bootstrap", "gui/" + uid, plist.toString()));
        assertThat(Files.readString(plist)).contains("io.tailwatch.agent");
    }

    @Test
    void installing_the_same_plist_again_checks_it_is_loaded_and_stops() throws Exception {
        assertThat(tw("service", "install").exit()).isZero();
        launchctl.reset();
        JarRun.Done again = tw("service", "install");
        assertThat(again.exit()).isZero();
        assertThat(again.out()).contains("already installed and loaded");
        assertThat(launchctl.calls()).containsExactly(List.of("print", "gui/" + uid + "/io.tailwatch.agent"));
    }

    @Test
    void a_bad_config_is_refused_before_anything_is_written() throws Exception {
        Path cfg = config("bad.yaml", "host:\n  intervall: 5s\n");
        JarRun.Done d = tw("service", "install", "--config", cfg.toString());
        assertThat(d.exit()).isEqualTo(2);
        assertThat(d.err()).contains("intervall").contains("fix the config first");
        assertThat(plist).doesNotExist();
        assertThat(launchctl.calls()).isEmpty();
    }

    @Test
    void a_failed_bootstrap_is_a_failure_with_launchctls_words() throws Exception {
        launchctl.exitWith(5, "Bootstrap failed: 5: Input/output error\n");
        JarRun.Done d = tw("service", "install");
        assertThat(d.exit()).isEqualTo(1);
        assertThat(d.err()).contains("Bootstrap failed: 5").contains("exit 5");
    }

    @Test
    void status_prints_the_service_state_and_exit_code_follows_launchd() throws Exception {
        launchctl.exitWith(0, "gui/501/io.tailwatch.agent = {\n\tstate = running\n\tpid = 4242\n\tlast exit code = 0\n\tnoise = x\n}\n");
        JarRun.Done up = tw("service", "status");
        assertThat(up.exit()).isZero();
        assertThat(up.out()).contains("state = running").contains("pid = 4242").doesNotContain("noise");
        assertThat(launchctl.calls()).containsExactly(List.of("print", "gui/" + uid + "/io.tailwatch.agent"));

        launchctl.exitWith(113, "Could not find service \"io.tailwatch.agent\" in domain for port\n");
        JarRun.Done down = tw("service", "status");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.out()).contains("not loaded").contains("not installed");
    }

    @Test
    void uninstall_boots_out_and_removes_the_plist() throws Exception {
        assertThat(tw("service", "install").exit()).isZero();
        launchctl.reset();
        JarRun.Done d = tw("service", "uninstall");
        assertThat(d.exit()).as(d.err()).isZero();
        assertThat(launchctl.calls()).containsExactly(List.of("bootout", "gui/" + uid + "/io.tailwatch.agent"));
        assertThat(plist).doesNotExist();
    }

    @Test
    void system_install_uses_launch_daemons_and_the_system_domain() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(uid == 0, "--system needs root");
        Path root = Files.createDirectories(dir.resolve("root"));
        env.put("TAILWATCH_ROOT", root.toString());
        JarRun.Done d = tw("service", "install", "--system");
        assertThat(d.exit()).as(d.err()).isZero();
        Path sys = root.resolve("Library/LaunchDaemons/io.tailwatch.agent.plist");
        assertThat(launchctl.calls()).containsExactly(List.of("bootstrap", "system", sys.toString()));
        assertThat(PlistText.parse(Files.readString(sys)).objectForKey("StandardErrorPath").toString())
                .isEqualTo(root.resolve("Library/Logs/tailwatch/tailwatch.err.log").toString());
    }

    @Test
    void a_per_user_install_under_sudo_is_refused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(uid == 0, "only root can look like sudo");
        env.put("SUDO_UID", "501");
        JarRun.Done d = tw("service", "install");
        assertThat(d.exit()).isEqualTo(1);
        assertThat(d.err()).contains("without sudo").contains("--system");
        assertThat(plist).doesNotExist();
        assertThat(launchctl.calls()).isEmpty();
    }

    @Test
    void without_launchctl_on_path_the_commands_say_so() throws Exception {
        env.put("PATH", dir.resolve("nowhere").toString());
        JarRun.Done d = tw("service", "status");
        assertThat(d.exit()).isEqualTo(1);
        assertThat(d.err()).contains("launchctl not found on PATH");
    }

    @Test
    void logs_shows_the_last_lines_and_follows_new_ones() throws Exception {
        Path logs = Files.createDirectories(home.resolve("Library/Logs/tailwatch"));
        Files.writeString(logs.resolve("tailwatch.err.log"), "one\ntwo\nthree\n");
        JarRun.Done d = tw("service", "logs", "-n", "2");
        assertThat(d.exit()).isZero();
        assertThat(d.out()).contains("two\nthree\n").doesNotContain("one");
        assertThat(d.out()).contains("tailwatch.out.log (no log yet)");

        Process follow = JarRun.builder(env, dir, "service", "logs", "-f", "-n", "0").redirectErrorStream(true).start();
        try {
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> {
                try (InputStream in = follow.getInputStream()) {
                    in.transferTo(new java.io.OutputStream() {
                        @Override
                        public void write(int b) {
                            synchronized (seen) {
                                seen.write(b);
                            }
                        }
                    });
                } catch (java.io.IOException ignored) {
                    // process ended
                }
            });
            reader.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> text(seen).contains("tailwatch.err.log"));
            Files.writeString(logs.resolve("tailwatch.err.log"), "four appended\n", StandardOpenOption.APPEND);
            await().atMost(Duration.ofSeconds(20)).until(() -> text(seen).contains("four appended"));
            assertThat(text(seen)).doesNotContain("three");
        } finally {
            follow.destroy();
            follow.waitFor();
        }
    }

    private static String text(ByteArrayOutputStream b) {
        synchronized (b) {
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void engine_restart_prints_the_plan_and_needs_yes() throws Exception {
        Path cfg = config("engines.yaml", ENGINES);
        JarRun.Done dry = tw("engine", "restart", "mlx", "--config", cfg.toString());
        assertThat(dry.exit()).isEqualTo(2);
        assertThat(dry.out()).contains("will run: launchctl kickstart -k gui/" + uid + "/com.example.mlx");
        assertThat(dry.err()).contains("--yes");
        assertThat(launchctl.calls()).isEmpty();

        JarRun.Done done = tw("engine", "restart", "mlx", "--yes", "--config", cfg.toString());
        assertThat(done.exit()).as(done.err()).isZero();
        assertThat(launchctl.calls()).containsExactly(List.of("kickstart", "-k", "gui/" + uid + "/com.example.mlx"));
        assertThat(done.out()).contains("restarted mlx");
    }

    @Test
    void engine_restart_refuses_engines_without_a_label_and_reports_launchctl_failures() throws Exception {
        Path cfg = config("engines.yaml", ENGINES);
        JarRun.Done noLabel = tw("engine", "restart", "ollama", "--yes", "--config", cfg.toString());
        assertThat(noLabel.exit()).isEqualTo(2);
        assertThat(noLabel.err()).contains("'ollama' has no launchd_label");
        JarRun.Done unknown = tw("engine", "restart", "vllm", "--yes", "--config", cfg.toString());
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("no engine named 'vllm'");
        assertThat(launchctl.calls()).isEmpty();

        launchctl.exitWith(113, "Could not find service \"com.example.mlx\" in domain for port\n");
        JarRun.Done failed = tw("engine", "restart", "mlx", "--yes", "--config", cfg.toString());
        assertThat(failed.exit()).isEqualTo(1);
        assertThat(failed.out()).contains("Could not find service");
        assertThat(failed.err()).contains("exit 113");
    }

    @Test
    void engine_plist_computes_max_kv_size_from_the_model_and_host() throws Exception {
        Path cfg = config("engines.yaml", ENGINES);
        JarRun.Done d = tw("service", "plist", "--engine", "mlx", "--config", cfg.toString(),
                "--program", "/Users/alice/venv/bin/mlx_lm.server", "--model", "mlx-community/Qwen3-14B-4bit",
                "--layers", "40", "--kv-heads", "8", "--head-dim", "128", "--memory", "192GB", "--weights", "10GB");
        assertThat(d.exit()).as(d.err()).isZero();
        long expected = KvCacheMath.safeMaxTokens(192_000_000_000L, 10_000_000_000L, 10L << 30, 2L << 30, 0.8,
                KvCacheMath.bytesPerToken(40, 8, 128, 2));
        NSDictionary p = PlistText.parse(d.out());
        assertThat(p.objectForKey("Label").toString()).isEqualTo("com.example.mlx");
        List<String> args = Arrays.stream(((NSArray) p.objectForKey("ProgramArguments")).getArray()).map(Object::toString).toList();
        assertThat(args).containsSubsequence("/Users/alice/venv/bin/mlx_lm.server", "--port", "8080", "--max-kv-size",
                Long.toString(expected));
        assertThat(d.err()).contains("max-kv-size " + expected + " tokens");

        JarRun.Done partial = tw("service", "plist", "--engine", "mlx", "--config", cfg.toString(), "--layers", "40");
        assertThat(partial.exit()).isEqualTo(2);
        assertThat(partial.err()).contains("--kv-heads").contains("--memory").contains("--weights");

        JarRun.Done ollama = tw("service", "plist", "--engine", "ollama", "--config", cfg.toString());
        assertThat(ollama.exit()).isZero();
        assertThat(ollama.err()).contains("set launchd_label: io.tailwatch.engine.ollama");
        assertThat(PlistText.parse(ollama.out()).objectForKey("Label").toString()).isEqualTo("io.tailwatch.engine.ollama");
    }
}
