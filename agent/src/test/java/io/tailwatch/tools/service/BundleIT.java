package io.tailwatch.tools.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The release bundle: unpacked with tar, bin/tailwatch finds a JDK >= 17 and passes the footprint flags. */
class BundleIT {
    static final Path BUNDLE = Path.of(System.getProperty("tailwatch.bundle", "target/tailwatch.tar.gz"));
    static final Path ROOT = Path.of(System.getProperty("tailwatch.root", ".."));
    static final boolean LINUX = System.getProperty("os.name").startsWith("Linux");

    @TempDir
    Path dir;
    Path home;

    record Done(int exit, String out) {
    }

    @BeforeEach
    void unpack() throws Exception {
        assertThat(BUNDLE).as("the bundle is built by mvn package").isRegularFile();
        Done d = exec(Map.of(), "tar", "xzf", BUNDLE.toString(), "-C", dir.toString());
        assertThat(d.exit()).as(d.out()).isZero();
        try (var s = Files.list(dir)) {
            home = s.filter(p -> p.getFileName().toString().startsWith("tailwatch-")).findFirst().orElseThrow();
        }
    }

    Done exec(Map<String, String> env, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Done(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** A fake java that claims a version and records its argv. */
    Path fakeJava(String name, String version) throws Exception {
        return fakeJava(name, version, true);
    }

    /**
     * ... and lists -XX:TrimNativeHeapInterval among its flags (JDK 17.0.9 and later) or not. Each
     * version check (a run with -XshowSettings) is counted in NAME.checks; any other run records its argv.
     */
    Path fakeJava(String name, String version, boolean knowsTrim) throws Exception {
        Path bin = Files.createDirectories(dir.resolve(name).resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\n"
                + "case \"$1\" in -XshowSettings:properties) echo check >> '" + dir.resolve(name + ".checks") + "'; "
                + "echo '    java.specification.version = " + version + "' >&2; "
                + (knowsTrim ? "echo '     uint TrimNativeHeapInterval                   = 0     {product} {default}'; " : "")
                + "echo '     bool UseSerialGC                              = false {product} {default}'; exit 0;; esac\n"
                + "case \"$*\" in *TrimNativeHeapInterval*) "
                + (knowsTrim ? ":" : "echo 'Unrecognized VM option' >&2; exit 1") + ";; esac\n"
                + "printf '%s\\n' \"$@\" > '" + dir.resolve(name + ".args") + "'\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin.getParent();
    }

    @Test
    void holds_the_jar_launcher_config_and_launchd_files() throws Exception {
        assertThat(home.getFileName().toString()).isEqualTo(BUNDLE.getFileName().toString().replace(".tar.gz", ""));
        assertThat(home.resolve("lib/tailwatch.jar")).isRegularFile();
        assertThat(Files.isExecutable(home.resolve("bin/tailwatch"))).isTrue();
        assertThat(home.resolve("config/tailwatch.yaml")).hasSameTextualContentAs(ROOT.resolve("config/tailwatch.yaml"));
        assertThat(home.resolve("launchd/jvm.options")).hasSameTextualContentAs(ROOT.resolve("launchd/jvm.options"));
        assertThat(home.resolve("launchd/io.tailwatch.agent.plist")).isRegularFile();
        if (Files.isDirectory(ROOT.resolve("dashboards"))) {
            assertThat(home.resolve("dashboards")).isDirectory();
        }
    }

    @Test
    void launcher_runs_the_version_command_with_a_real_jdk() throws Exception {
        Done d = exec(Map.of(), home.resolve("bin/tailwatch").toString(), "--version");
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(d.out()).containsPattern("tailwatch \\d+\\.\\d+\\.\\d+").contains("Java 1");
    }

    @Test
    void launcher_passes_the_footprint_flags_and_the_arguments() throws Exception {
        Path jdk = fakeJava("jdk21", "21");
        Done d = exec(Map.of("JAVA_HOME", jdk.toString(), "TAILWATCH_JAVA_OPTS", "-Dx=1"),
                home.resolve("bin/tailwatch").toString(), "run", "--listen", "127.0.0.1:9999");
        assertThat(d.exit()).as(d.out()).isZero();
        List<String> args = Files.readAllLines(dir.resolve("jdk21.args"));
        assertThat(Files.readAllLines(dir.resolve("jdk21.checks"))).as("java runs once before the agent").hasSize(1);
        List<String> flags = new java.util.ArrayList<>(JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm.options"))));
        if (LINUX) {
            flags.add("-XX:TrimNativeHeapInterval=60000"); // this JVM accepts it
        }
        assertThat(args.subList(0, flags.size())).isEqualTo(flags);
        assertThat(args.subList(flags.size(), args.size())).containsExactly("-Dx=1", "-jar",
                home.resolve("lib/tailwatch.jar").toRealPath().toString(), "run", "--listen", "127.0.0.1:9999");
    }

    @Test
    void launcher_leaves_out_the_native_trim_flag_when_the_jvm_does_not_know_it() throws Exception {
        Path jdk = fakeJava("jdk17early", "17", false);
        Done d = exec(Map.of("JAVA_HOME", jdk.toString()), home.resolve("bin/tailwatch").toString(), "run");
        assertThat(d.exit()).as(d.out()).isZero();
        List<String> args = Files.readAllLines(dir.resolve("jdk17early.args"));
        assertThat(Files.readAllLines(dir.resolve("jdk17early.checks"))).as("java runs once before the agent").hasSize(1);
        List<String> flags = JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm.options")));
        assertThat(args).doesNotContain("-XX:TrimNativeHeapInterval=60000");
        assertThat(args.subList(0, flags.size())).isEqualTo(flags);
        assertThat(args.subList(flags.size(), args.size())).containsExactly("-jar",
                home.resolve("lib/tailwatch.jar").toRealPath().toString(), "run");
    }

    @Test
    void launcher_skips_a_java_older_than_17_and_says_so_when_none_fits() throws Exception {
        Path old = fakeJava("jdk11", "11");
        // JAVA_HOME too old: falls through to the java on PATH (the real one running this test).
        String realBin = Path.of(System.getProperty("java.home"), "bin").toString();
        Done fallback = exec(Map.of("JAVA_HOME", old.toString(), "PATH", realBin + ":/usr/bin:/bin"),
                home.resolve("bin/tailwatch").toString(), "--version");
        assertThat(fallback.exit()).as(fallback.out()).isZero();
        assertThat(fallback.out()).contains("tailwatch ");
        assertThat(dir.resolve("jdk11.args")).doesNotExist();

        Path old8 = fakeJava("jdk8", "1.8");
        Done none = exec(Map.of("JAVA_HOME", old.toString(), "PATH", old8.resolve("bin") + ":/usr/bin:/bin"),
                home.resolve("bin/tailwatch").toString(), "--version");
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.out()).contains("needs Java 17 or newer").contains(old.resolve("bin/java") + ": 11")
                .contains(old8.resolve("bin/java") + ": 8");
    }
}
