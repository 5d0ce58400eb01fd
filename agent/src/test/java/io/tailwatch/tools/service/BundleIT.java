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

    /**
     * The bundle's directory as the launcher names it to the JVM: the agent finds the launcher's option files
     * there even where lib/tailwatch.jar is a link into another directory.
     */
    String homeFlag() throws java.io.IOException {
        return "-Dtailwatch.home=" + home.toRealPath();
    }

    Done exec(Map<String, String> env, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        // The launcher's class-data archive goes to the test's own cache directory.
        pb.environment().remove("TAILWATCH_CDS");
        pb.environment().remove("TAILWATCH_JAVA_OPTS");
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
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
        return fakeJava(name, version, knowsTrim, null);
    }

    /**
     * ... and, with {@code vmVersion}, names its build (java.vm.version), which the launcher's class-data
     * archive needs; a run with -XX:ArchiveClassesAtExit=FILE writes a stand-in archive to FILE and is
     * recorded in NAME.dumps.
     */
    Path fakeJava(String name, String version, boolean knowsTrim, String vmVersion) throws Exception {
        Path bin = Files.createDirectories(dir.resolve(name).resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\n"
                + "case \"$1\" in -XshowSettings:properties) echo check >> '" + dir.resolve(name + ".checks") + "'; "
                + "echo '    java.specification.version = " + version + "' >&2; "
                + (vmVersion == null ? "" : "echo '    java.vm.version = " + vmVersion + "' >&2; ")
                + (knowsTrim ? "echo '     uint TrimNativeHeapInterval                   = 0     {product} {default}'; " : "")
                + "echo '     bool UseSerialGC                              = false {product} {default}'; exit 0;; esac\n"
                + "case \"$*\" in *TrimNativeHeapInterval*) "
                + (knowsTrim ? ":" : "echo 'Unrecognized VM option' >&2; exit 1") + ";; esac\n"
                + "for a in \"$@\"; do case $a in -XX:ArchiveClassesAtExit=*) echo archive > \"${a#*=}\"; "
                + "printf '%s\\n' \"$*\" >> '" + dir.resolve(name + ".dumps") + "'; exit 0;; esac; done\n"
                + "printf '%s\\n' \"$@\" > '" + dir.resolve(name + ".args") + "'\n"
                + "printf '%s\\n' \"${MALLOC_ARENA_MAX-unset}\" > '" + dir.resolve(name + ".arenas") + "'\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        // Every JDK since 9 has lib/modules; the launcher keys its kept java check on it.
        Path modules = Files.createDirectories(bin.getParent().resolve("lib")).resolve("modules");
        if (!Files.exists(modules)) {
            Files.writeString(modules, "modules of " + name);
        }
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
        // The fleet kit's dashboards ship in the bundle: the source tree has them, and so does the bundle.
        try (var files = Files.walk(ROOT.resolve("dashboards/grafana"))) {
            List<Path> grafana = files.filter(Files::isRegularFile).toList();
            assertThat(grafana).as("the Grafana dashboards and provisioning in the source tree")
                    .extracting(f -> f.getFileName().toString()).contains("host.json", "engines.json", "fleet.json", "tailwatch-rules.yaml");
            for (Path f : grafana) {
                assertThat(home.resolve(ROOT.relativize(f).toString())).as("bundled " + ROOT.relativize(f)).hasSameBinaryContentAs(f);
            }
        }
    }

    /**
     * The jar keeps sqlite-jdbc's native library for macOS and 64-bit Linux only, and the one for this
     * host loads from it: a run written to history.db through the jar's classes is read back by the
     * bundle's own {@code history} command.
     */
    @Test
    void keeps_only_the_macos_and_linux_sqlite_natives_and_history_db_round_trips() throws Exception {
        Path jar = home.resolve("lib/tailwatch.jar");
        java.util.Set<String> natives = new java.util.TreeSet<>();
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            zip.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.startsWith("org/sqlite/native/") && !n.endsWith("/"))
                    .forEach(natives::add);
        }
        assertThat(natives).containsExactlyInAnyOrder(
                "org/sqlite/native/Mac/aarch64/libsqlitejdbc.dylib",
                "org/sqlite/native/Mac/x86_64/libsqlitejdbc.dylib",
                "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so",
                "org/sqlite/native/Linux/aarch64/libsqlitejdbc.so",
                "org/sqlite/native/Linux-Musl/x86_64/libsqlitejdbc.so",
                "org/sqlite/native/Linux-Musl/aarch64/libsqlitejdbc.so");

        Path db = dir.resolve("data/history.db");
        Path writer = dir.resolve("WriteRun.java");
        Files.writeString(writer, """
                import io.tailwatch.tools.history.History;
                import io.tailwatch.tools.history.RunRecord;
                import java.nio.file.Path;
                import java.time.Instant;

                public class WriteRun {
                    public static void main(String[] args) throws Exception {
                        Instant t = Instant.parse("2026-01-02T03:04:05Z");
                        try (History h = History.open(Path.of(args[0]))) {
                            h.record(new RunRecord(0, "bench", t, t.plusSeconds(60), "host-a", "ollama", "qwen3:14b",
                                    42.5, "tok/s", "stable", "{}"));
                        }
                        System.out.println("native=" + org.sqlite.SQLiteJDBCLoader.isNativeMode());
                    }
                }
                """);
        // A private temporary directory: the native library is unpacked from this jar, not found from an
        // earlier run.
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Done w = exec(Map.of(), java, "-Djava.io.tmpdir=" + tmp, "-cp", jar.toString(), writer.toString(), db.toString());
        assertThat(w.exit()).as(w.out()).isZero();
        assertThat(w.out()).contains("native=true");

        Done r = exec(Map.of("TAILWATCH_CDS", "off", "TAILWATCH_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp),
                home.resolve("bin/tailwatch").toString(), "history", "--history-db", db.toString(), "--json");
        assertThat(r.exit()).as(r.out()).isZero();
        com.fasterxml.jackson.databind.JsonNode rows = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).path("model").asText()).isEqualTo("qwen3:14b");
        assertThat(rows.get(0).path("engine").asText()).isEqualTo("ollama");
        assertThat(rows.get(0).path("headline").asDouble()).isEqualTo(42.5);
    }

    /**
     * The jar keeps only the Bouncy Castle packages the agent's classes reach, and with the jar alone on the
     * class path every key form the web config takes is read (SEC1 EC, PKCS#1 RSA, PKCS#8 EC and RSA) and
     * matches its certificate, an encrypted key is refused by name, and a bcrypt hash made by libxcrypt is
     * checked: a class left out by mistake would fail here, not in a listener at start-up.
     */
    @Test
    void keeps_only_the_bouncy_castle_packages_in_use_and_reads_every_key_form_through_the_jar() throws Exception {
        Path jar = home.resolve("lib/tailwatch.jar");
        long bc;
        java.util.List<String> left;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            bc = zip.stream().filter(e -> e.getName().startsWith("org/bouncycastle/") && !e.isDirectory()).count();
            left = zip.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.startsWith("org/bouncycastle/pqc/") || n.startsWith("org/bouncycastle/jcajce/provider/")
                            || n.startsWith("org/bouncycastle/cms/") || n.startsWith("org/bouncycastle/tls/"))
                    .toList();
        }
        assertThat(left).isEmpty();
        assertThat(bc).isBetween(500L, 2_000L);

        io.tailwatch.testing.TestCerts.requireOpenssl();
        io.tailwatch.testing.TestCerts.ca(dir, "ca");
        for (String kind : List.of("ec", "rsa", "pkcs8")) {
            io.tailwatch.testing.TestCerts.leaf(dir, "ca", kind, kind);
        }
        Done rsa8 = exec(Map.of(), "openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                "-out", dir.resolve("rsa8.key").toString());
        assertThat(rsa8.exit()).as(rsa8.out()).isZero();
        Done enc = exec(Map.of(), "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-aes-256-cbc", "-pass", "pass:secret", "-out", dir.resolve("encrypted.key").toString());
        assertThat(enc.exit()).as(enc.out()).isZero();
        String hash = io.tailwatch.testing.TestCerts.bcrypt("scrape-s3cret");
        Path reader = dir.resolve("ReadKeys.java");
        Files.writeString(reader, """
                import io.tailwatch.core.tls.Pem;
                import java.nio.file.Path;

                public class ReadKeys {
                    public static void main(String[] args) throws Exception {
                        Path d = Path.of(args[0]);
                        for (String k : new String[] {"ec", "rsa", "pkcs8"}) {
                            var key = Pem.privateKey(d.resolve(k + ".key"));
                            var cert = Pem.certificates(d.resolve(k + ".crt")).get(0);
                            System.out.println(k + "=" + key.getAlgorithm() + " mismatch=" + Pem.mismatch(cert, key));
                        }
                        System.out.println("rsa8=" + Pem.privateKey(d.resolve("rsa8.key")).getAlgorithm());
                        try {
                            Pem.privateKey(d.resolve("encrypted.key"));
                            System.out.println("encrypted=read");
                        } catch (java.io.IOException e) {
                            System.out.println("encrypted=" + e.getMessage());
                        }
                        System.out.println("bcrypt=" + org.bouncycastle.crypto.generators.OpenBSDBCrypt.checkPassword(
                                args[1], "scrape-s3cret".toCharArray()) + "/" + org.bouncycastle.crypto.generators.OpenBSDBCrypt
                                .checkPassword(args[1], "wrong".toCharArray()));
                    }
                }
                """);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Done r = exec(Map.of(), java, "-cp", jar.toString(), reader.toString(), dir.toString(), hash);
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out()).contains("ec=EC mismatch=null", "rsa=RSA mismatch=null", "pkcs8=EC mismatch=null", "rsa8=RSA",
                "encrypted.key: the private key is encrypted", "bcrypt=true/false");
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
        assertThat(args.subList(flags.size(), args.size())).containsExactly(homeFlag(), "-Dx=1", "-jar",
                home.resolve("lib/tailwatch.jar").toRealPath().toString(), "run", "--listen", "127.0.0.1:9999");
    }

    /**
     * The daemon of a config that gives an engine a metering proxy gets launchd/jvm-proxy.options after the daemon's
     * flags, however the config is named on the command line; a config without one, a proxy only in a comment, or
     * a runbook command with a proxied config gets none of them.
     */
    @Test
    void launcher_adds_the_proxy_flags_only_for_a_daemon_whose_config_has_a_proxy() throws Exception {
        Path jdk = fakeJava("jdkproxy", "17");
        assertThat(home.resolve("launchd/jvm-proxy.options")).hasSameTextualContentAs(ROOT.resolve("launchd/jvm-proxy.options"));
        List<String> proxyFlags = JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm-proxy.options")));
        assertThat(proxyFlags).isNotEmpty();
        String engines = "engines:\n  - name: mlx\n    api: openai\n    url: http://127.0.0.1:8080\n";
        Path block = Files.writeString(dir.resolve("block.yaml"), engines + "    proxy:\n      listen: 127.0.0.1:8081\n");
        Path flow = Files.writeString(dir.resolve("flow.yaml"), engines + "    proxy: {listen: 127.0.0.1:8081}\n");
        Path plain = Files.writeString(dir.resolve("plain.yaml"), engines);
        Path commented = Files.writeString(dir.resolve("commented.yaml"), engines + "    # proxy:\n    #   listen: 127.0.0.1:8081\n");
        List<String> daemon = new java.util.ArrayList<>(JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm.options"))));
        if (LINUX) {
            daemon.add("-XX:TrimNativeHeapInterval=60000");
        }
        List<String> withProxy = new java.util.ArrayList<>(JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm.options"))));
        withProxy.addAll(proxyFlags);
        if (LINUX) {
            withProxy.add("-XX:TrimNativeHeapInterval=60000");
        }
        Map<List<String>, List<String>> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of("run", "--config", block.toString()), withProxy);
        cases.put(List.of("run", "--config=" + flow), withProxy);
        cases.put(List.of("run", "-c", flow.toString()), withProxy);
        cases.put(List.of("run", "--config", plain.toString()), daemon);
        cases.put(List.of("run", "--config", commented.toString()), daemon);
        cases.put(List.of("run", "--config", dir.resolve("missing.yaml").toString()), daemon);
        cases.put(List.of("run"), daemon);
        cases.put(List.of("run", "--config"), daemon);
        for (Map.Entry<List<String>, List<String>> c : cases.entrySet()) {
            List<String> cmd = new java.util.ArrayList<>(List.of(home.resolve("bin/tailwatch").toString()));
            cmd.addAll(c.getKey());
            Done d = exec(Map.of("JAVA_HOME", jdk.toString()), cmd.toArray(String[]::new));
            assertThat(d.exit()).as(c.getKey() + ": " + d.out()).isZero();
            List<String> args = Files.readAllLines(dir.resolve("jdkproxy.args"));
            List<String> expected = new java.util.ArrayList<>(c.getValue());
            expected.add(homeFlag());
            expected.add("-jar");
            expected.add(home.resolve("lib/tailwatch.jar").toRealPath().toString());
            expected.addAll(c.getKey());
            assertThat(args).as(c.getKey().toString()).containsExactlyElementsOf(expected);
        }
        Done d = exec(Map.of("JAVA_HOME", jdk.toString(), "TAILWATCH_CDS", "off"), home.resolve("bin/tailwatch").toString(),
                "status", "--config", block.toString());
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(Files.readAllLines(dir.resolve("jdkproxy.args"))).as("a runbook command").doesNotContainAnyElementsOf(proxyFlags);
    }

    @Test
    void launcher_keeps_the_daemon_only_flags_from_a_runbook_command() throws Exception {
        Path jdk = fakeJava("jdkrunbook", "17");
        String options = Files.readString(ROOT.resolve("launchd/jvm.options"));
        int mark = options.indexOf("\n# Daemon only");
        assertThat(mark).as("launchd/jvm.options has a daemon-only part").isPositive();
        List<String> all = JvmFlags.parse(options);
        List<String> common = new java.util.ArrayList<>(JvmFlags.parse(options.substring(0, mark)));
        assertThat(common).isNotEmpty().hasSizeLessThan(all.size());
        if (LINUX) {
            common.add("-XX:TrimNativeHeapInterval=60000");
        }
        Done d = exec(Map.of("JAVA_HOME", jdk.toString(), "TAILWATCH_CDS", "off"), home.resolve("bin/tailwatch").toString(), "--version");
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(Files.readAllLines(dir.resolve("jdkrunbook.args"))).containsExactlyElementsOf(
                java.util.stream.Stream.concat(common.stream(), java.util.stream.Stream.of(homeFlag(), "-jar",
                        home.resolve("lib/tailwatch.jar").toRealPath().toString(), "--version")).toList());
    }

    @Test
    void launcher_passes_a_flag_with_a_star_as_written_even_when_a_file_name_matches_it() throws Exception {
        Path jdk = fakeJava("jdkglob", "17");
        List<String> flags = JvmFlags.parse(Files.readString(ROOT.resolve("launchd/jvm.options")));
        String star = flags.stream().filter(f -> f.contains("*")).findFirst().orElseThrow();
        // A file in the working directory that the pattern, read as a file-name pattern, would match.
        Files.createFile(dir.resolve(star.replace("*", "x")));
        Done d = exec(Map.of("JAVA_HOME", jdk.toString()), home.resolve("bin/tailwatch").toString(), "run");
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(Files.readAllLines(dir.resolve("jdkglob.args"))).contains(star).doesNotContain(star.replace("*", "x"));
    }

    @Test
    void launcher_caps_glibc_malloc_arenas_on_linux_and_keeps_a_value_already_set() throws Exception {
        Path jdk = fakeJava("jdkarenas", "17");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/tailwatch").toString(), "run").directory(dir.toFile());
        pb.environment().remove("MALLOC_ARENA_MAX");
        pb.environment().put("JAVA_HOME", jdk.toString());
        Process p = pb.redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(Files.readAllLines(dir.resolve("jdkarenas.arenas"))).containsExactly(LINUX ? "2" : "unset");

        Done d = exec(Map.of("JAVA_HOME", jdk.toString(), "MALLOC_ARENA_MAX", "4"), home.resolve("bin/tailwatch").toString(), "run");
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(Files.readAllLines(dir.resolve("jdkarenas.arenas"))).containsExactly("4");
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
        assertThat(args.subList(flags.size(), args.size())).containsExactly(homeFlag(), "-jar",
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

    private long checks(String name) throws Exception {
        Path f = dir.resolve(name + ".checks");
        return Files.exists(f) ? Files.readAllLines(f).size() : 0;
    }

    private List<Path> keptChecks() throws Exception {
        return cached(".check");
    }

    /** The files in the launcher's cache directory whose names end with {@code suffix}, sorted. */
    private List<Path> cached(String suffix) throws Exception {
        Path d = dir.resolve("cache/tailwatch");
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (var s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void the_java_check_is_kept_so_later_commands_run_java_once() throws Exception {
        Path jdk = fakeJava("jdkkept", "21", true, "21.0.2+13");
        String launcher = home.resolve("bin/tailwatch").toString();
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
        Path args = dir.resolve("jdkkept.args");

        Done first = exec(env, launcher, "run");
        assertThat(first.exit()).as(first.out()).isZero();
        List<String> firstArgs = Files.readAllLines(args);
        assertThat(checks("jdkkept")).isEqualTo(1);
        assertThat(keptChecks()).hasSize(1);

        for (int i = 0; i < 3; i++) {
            Done d = exec(env, launcher, "run");
            assertThat(d.exit()).as(d.out()).isZero();
            assertThat(d.out()).isEqualTo(first.out());
            assertThat(Files.readAllLines(args)).as("the same flags from the kept answer").isEqualTo(firstArgs);
        }
        assertThat(checks("jdkkept")).as("java ran only for the agent after the first command").isEqualTo(1);
        assertThat(firstArgs.contains("-XX:TrimNativeHeapInterval=60000")).as("the trim flag on Linux only").isEqualTo(LINUX);

        // Runbook commands read it too, and the class-data archive is named from the kept build.
        assertThat(exec(env, launcher, "status").exit()).isZero();
        assertThat(exec(env, launcher, "diagnose").exit()).isZero();
        assertThat(Files.readAllLines(args)).anyMatch(a -> a.startsWith("-XX:SharedArchiveFile=")).endsWith("diagnose");
        assertThat(checks("jdkkept")).isEqualTo(1);
    }

    @Test
    void a_garbled_truncated_or_foreign_kept_check_is_ignored_and_replaced() throws Exception {
        Path jdk = fakeJava("jdkgarbled", "17", false, "17.0.8+7");
        String launcher = home.resolve("bin/tailwatch").toString();
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
        Path args = dir.resolve("jdkgarbled.args");
        Done first = exec(env, launcher, "run");
        assertThat(first.exit()).as(first.out()).isZero();
        List<String> firstArgs = Files.readAllLines(args);
        Path kept = keptChecks().get(0);
        String whole = Files.readString(kept);
        List<String> lines = Files.readAllLines(kept);
        assertThat(whole).contains("key " + jdk.resolve("bin/java") + " ", "\ntrim no\n");

        // A JVM that would claim the trim flag, a version below 17, a key of another java, garbage,
        // half a file, an empty file: each is refused, java is asked again and the command is unchanged.
        List<String> bad = List.of(
                whole.replace("trim no", "trim maybe"),
                whole.replace("version 17", "version x17"),
                whole.replace("key " + jdk, "key /elsewhere"),
                "\u0000\u0001garbage\n\n",
                String.join("\n", lines.subList(0, 3)) + "\n",
                whole.substring(0, whole.length() - 1),
                "");
        long expected = 1;
        for (String content : bad) {
            Files.writeString(kept, content);
            Done d = exec(env, launcher, "run");
            expected++;
            assertThat(d.exit()).as(content).isZero();
            assertThat(d.out()).isEqualTo(first.out());
            assertThat(Files.readAllLines(args)).as(content).isEqualTo(firstArgs).doesNotContain("-XX:TrimNativeHeapInterval=60000");
            assertThat(checks("jdkgarbled")).as(content).isEqualTo(expected);
            assertThat(Files.readString(kept)).as("written again whole").isEqualTo(whole);
        }

        // A cache directory that cannot be made or written: java is asked every time, the command is unchanged.
        Files.writeString(dir.resolve("blocker"), "a file where the cache directory would go");
        Map<String, String> blocked = Map.of("JAVA_HOME", jdk.toString(), "XDG_CACHE_HOME", dir.resolve("blocker").toString());
        for (int i = 0; i < 2; i++) {
            Done d = exec(blocked, launcher, "run");
            assertThat(d.exit()).as(d.out()).isZero();
            assertThat(d.out()).isEqualTo(first.out());
            assertThat(Files.readAllLines(args)).isEqualTo(firstArgs);
        }
        assertThat(checks("jdkgarbled")).isEqualTo(expected + 2);
    }

    @Test
    void a_java_replaced_in_place_is_checked_again() throws Exception {
        Path jdk = fakeJava("jdkswap", "17", false, "17.0.8+7");
        String launcher = home.resolve("bin/tailwatch").toString();
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
        Path args = dir.resolve("jdkswap.args");
        assertThat(exec(env, launcher, "run").exit()).isZero();
        assertThat(exec(env, launcher, "run").exit()).isZero();
        assertThat(checks("jdkswap")).isEqualTo(1);
        assertThat(Files.readAllLines(args)).doesNotContain("-XX:TrimNativeHeapInterval=60000");

        // A newer build at the same path (the executable rewritten, its time set back): asked again,
        // and its answer (it knows the trim flag) is used.
        Path java = jdk.resolve("bin/java");
        var stamp = Files.getLastModifiedTime(java);
        fakeJava("jdkswap", "17", true, "17.0.15+6");
        Files.setLastModifiedTime(java, stamp);
        Done d = exec(env, launcher, "run");
        assertThat(d.exit()).as(d.out()).isZero();
        assertThat(checks("jdkswap")).isEqualTo(2);
        assertThat(Files.readAllLines(args).contains("-XX:TrimNativeHeapInterval=60000")).as("the trim flag on Linux only")
                .isEqualTo(LINUX);
        assertThat(exec(env, launcher, "run").exit()).isZero();
        assertThat(checks("jdkswap")).isEqualTo(2);

        // Only the JDK's modules replaced (same launcher binary): asked again.
        Path modules = jdk.resolve("lib/modules");
        var modStamp = Files.getLastModifiedTime(modules);
        Files.delete(modules);
        Files.writeString(modules, "modules of another build");
        Files.setLastModifiedTime(modules, modStamp);
        assertThat(exec(env, launcher, "run").exit()).isZero();
        assertThat(checks("jdkswap")).isEqualTo(3);

        // A java reached through a link (as /usr/bin/java is): the link's target is what is kept, and a
        // link turned to another JDK gets that JDK's answer.
        Path other = fakeJava("jdkother", "21", true, "21.0.2+13");
        Path link = Files.createDirectories(dir.resolve("alternatives/bin")).resolve("java");
        Files.createSymbolicLink(link, jdk.resolve("bin/java"));
        Map<String, String> viaLink = Map.of("JAVA_HOME", link.getParent().getParent().toString());
        assertThat(exec(viaLink, launcher, "run").exit()).isZero();
        assertThat(checks("jdkswap")).as("the link's target was kept already").isEqualTo(3);
        Files.delete(link);
        Files.createSymbolicLink(link, other.resolve("bin/java"));
        for (int i = 0; i < 2; i++) {
            assertThat(exec(viaLink, launcher, "run").exit()).isZero();
        }
        assertThat(checks("jdkother")).isEqualTo(1);
        assertThat(checks("jdkswap")).isEqualTo(3);
        assertThat(Files.readAllLines(dir.resolve("jdkother.args"))).endsWith("run");
    }

    @Test
    void a_java_outside_a_jdk_is_checked_every_time() throws Exception {
        Path jdk = fakeJava("jdkstub", "17");
        Files.delete(jdk.resolve("lib/modules"));
        String launcher = home.resolve("bin/tailwatch").toString();
        for (int i = 0; i < 2; i++) {
            Done d = exec(Map.of("JAVA_HOME", jdk.toString()), launcher, "run");
            assertThat(d.exit()).as(d.out()).isZero();
        }
        assertThat(checks("jdkstub")).isEqualTo(2);
        assertThat(keptChecks()).isEmpty();
    }

    @Test
    void a_real_jdk_keeps_its_check_and_a_garbled_one_never_changes_a_command() throws Exception {
        String launcher = home.resolve("bin/tailwatch").toString();
        Path realHome = Path.of(System.getProperty("java.home"));
        Map<String, String> env = Map.of("JAVA_HOME", realHome.toString(), "TAILWATCH_CDS", "off");
        Done plain = exec(env, launcher, "--version");
        assertThat(plain.exit()).as(plain.out()).isZero();
        List<Path> kept = keptChecks();
        assertThat(kept).hasSize(1);
        assertThat(Files.readAllLines(kept.get(0))).hasSize(6).startsWith("tailwatch java check 1")
                .contains("version " + Runtime.version().feature(), "build " + System.getProperty("java.vm.version"))
                .endsWith("end");
        Done again = exec(env, launcher, "--version");
        assertThat(again.exit()).isZero();
        assertThat(again.out()).isEqualTo(plain.out());

        Files.write(kept.get(0), new byte[] {(byte) 0xff, 0, 'x', '\n', 'e', 'n', 'd'});
        Done garbled = exec(env, launcher, "--version");
        assertThat(garbled.exit()).isZero();
        assertThat(garbled.out()).isEqualTo(plain.out());
        assertThat(Files.readAllLines(kept.get(0))).hasSize(6).endsWith("end");
    }

    @Test
    void every_command_answers_from_the_bundle_as_from_the_classes() throws Exception {
        // The bundle's picocli class files are rewritten at build time (version 52, frames computed): every
        // command's help and a usage error print, and exit, exactly as the unchanged library does here.
        String launcher = home.resolve("bin/tailwatch").toString();
        List<String> names = new java.util.ArrayList<>(io.tailwatch.cli.TailwatchCommand.commandLine().getSubcommands().keySet());
        List<String[]> runs = new java.util.ArrayList<>();
        runs.add(new String[] {"--help"});
        runs.add(new String[] {"--no-such-option"});
        runs.add(new String[] {"stauts"});
        for (String name : names) {
            runs.add(new String[] {name, "--help"});
        }
        runs.add(new String[] {"status", "--no-such-option"});
        runs.add(new String[] {"kv-budget", "--layers", "x"});
        for (String[] args : runs) {
            java.io.StringWriter out = new java.io.StringWriter();
            picocli.CommandLine cl = io.tailwatch.cli.TailwatchCommand.commandLine(args);
            cl.setOut(new java.io.PrintWriter(out, true));
            cl.setErr(new java.io.PrintWriter(out, true));
            int exit = cl.execute(args);
            List<String> cmd = new java.util.ArrayList<>(List.of(launcher));
            cmd.addAll(List.of(args));
            Done d = exec(Map.of("TAILWATCH_CDS", "off"), cmd.toArray(String[]::new));
            assertThat(d.exit()).as(String.join(" ", args)).isEqualTo(exit);
            assertThat(d.out()).as(String.join(" ", args)).isEqualTo(out.toString());
        }
    }

    private List<Path> archives() throws Exception {
        return cached(".jsa");
    }

    @Test
    void the_first_status_makes_the_class_data_archive_every_runbook_command_then_starts_from_it() throws Exception {
        Path jdk = fakeJava("jdk17cds", "17", true, "17.0.15+6");
        String launcher = home.resolve("bin/tailwatch").toString();
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
        Path args = dir.resolve("jdk17cds.args");
        Path dumps = dir.resolve("jdk17cds.dumps");

        assertThat(exec(env, launcher, "--help").exit()).isZero();
        assertThat(Files.readAllLines(args)).noneMatch(a -> a.contains("SharedArchive")).endsWith("--help");
        assertThat(dumps).as("--help does not make it").doesNotExist();
        assertThat(archives()).isEmpty();

        Done first = exec(env, launcher, "status", "--url", "http://127.0.0.1:9531");
        assertThat(first.exit()).as(first.out()).isZero();
        assertThat(Files.readAllLines(dumps)).as("the status run itself makes it").hasSize(1)
                .allSatisfy(l -> assertThat(l).contains(" -Dtailwatch.cds.training=true ")
                        .endsWith(" status --url http://127.0.0.1:9531"));
        List<Path> made = archives();
        assertThat(made).hasSize(1);
        assertThat(made.get(0).getFileName().toString()).matches("tailwatch-\\d+-\\d+\\.jsa");

        for (String command : new String[] {"diagnose", "kv-budget", "--help"}) {
            Done d = exec(env, launcher, command);
            assertThat(d.exit()).as(d.out()).isZero();
            assertThat(Files.readAllLines(args)).as(command).contains("-XX:SharedArchiveFile=" + made.get(0), "-Xshare:auto")
                    .endsWith(command);
        }
        assertThat(Files.readAllLines(dumps)).as("made once").hasSize(1);

        assertThat(exec(env, launcher, "run").exit()).isZero();
        assertThat(Files.readAllLines(args)).as("the daemon starts without it").noneMatch(a -> a.contains("SharedArchive"))
                .endsWith("run");

        Map<String, String> off = new java.util.HashMap<>(env);
        off.put("TAILWATCH_CDS", "off");
        assertThat(exec(off, launcher, "status").exit()).isZero();
        assertThat(Files.readAllLines(args)).noneMatch(a -> a.contains("SharedArchive"));
    }

    @Test
    void a_real_jdk_uses_the_archive_and_a_broken_or_stale_one_never_changes_a_command() throws Exception {
        String launcher = home.resolve("bin/tailwatch").toString();
        Done plain = exec(Map.of("TAILWATCH_CDS", "off"), launcher, "--version");
        assertThat(plain.exit()).as(plain.out()).isZero();
        assertThat(archives()).isEmpty();

        // No agent on port 1: status fails (exit 1, the same as without an archive) and still leaves the archive.
        Done status = exec(Map.of(), launcher, "status", "--url", "http://127.0.0.1:1");
        Done statusPlain = exec(Map.of("TAILWATCH_CDS", "off"), launcher, "status", "--url", "http://127.0.0.1:1");
        assertThat(status.exit()).isEqualTo(1).isEqualTo(statusPlain.exit());
        assertThat(status.out()).isEqualTo(statusPlain.out());
        assertThat(archives()).hasSize(1);
        Path archive = archives().get(0);
        assertThat(Files.size(archive)).isGreaterThan(100_000);
        // The command line's own classes come from the archive.
        Done used = exec(Map.of("TAILWATCH_JAVA_OPTS", "-Xlog:class+load=info"), launcher, "--version");
        assertThat(used.out()).containsPattern("io\\.tailwatch\\.cli\\.TailwatchCommand source: shared objects file")
                .as("picocli's classes too: the bundle's jar holds them as class files the archive can keep")
                .containsPattern("picocli\\.CommandLine\\$Model\\$CommandSpec source: shared objects file")
                .doesNotContainPattern("picocli\\.\\S+ source: (jar|file):")
                .as("every command's model, though the status run that made it built only its own")
                .containsPattern("io\\.tailwatch\\.cli\\.KvBudgetCommand source: shared objects file");
        assertThat(exec(Map.of(), launcher, "--version").out()).isEqualTo(plain.out());
        Done help = exec(Map.of("TAILWATCH_JAVA_OPTS", "-Xlog:class+load=info"), launcher, "--help");
        assertThat(help.out()).as("and the classes that print a usage")
                .containsPattern("picocli\\.CommandLine\\$Help\\$TextTable source: shared objects file")
                .containsPattern("picocli\\.CommandLine\\$Help\\$DefaultOptionRenderer source: shared objects file");

        // Broken: the JVM refuses it quietly and the command prints exactly what it prints without one.
        archive.toFile().setWritable(true);
        Files.write(archive, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        Done broken = exec(Map.of(), launcher, "--version");
        assertThat(broken.exit()).isZero();
        assertThat(broken.out()).isEqualTo(plain.out());

        // Stale: a new jar (another modification time) gets an archive of its own; the old one goes.
        Path jar = home.resolve("lib/tailwatch.jar");
        Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(jar).toMillis() - 3_600_000));
        assertThat(exec(Map.of(), launcher, "--version").out()).isEqualTo(plain.out());
        Done again = exec(Map.of(), launcher, "status", "--url", "http://127.0.0.1:1");
        assertThat(again.out()).isEqualTo(statusPlain.out());
        assertThat(archives()).hasSize(1).doesNotContain(archive);

        // Another install (the same jar elsewhere) makes its own archive and leaves this one's alone.
        Path other = Files.createDirectories(dir.resolve("other"));
        Done copy = exec(Map.of(), "cp", "-R", home.toString(), other.toString());
        assertThat(copy.exit()).as(copy.out()).isZero();
        List<Path> before = archives();
        Done elsewhere = exec(Map.of(), other.resolve(home.getFileName()).resolve("bin/tailwatch").toString(), "status",
                "--url", "http://127.0.0.1:1");
        assertThat(elsewhere.out()).isEqualTo(statusPlain.out());
        assertThat(archives()).hasSize(2).containsAll(before);

        // A cache directory that cannot be made: no archive, same output.
        Files.writeString(dir.resolve("blocker"), "a file where the cache directory would go");
        Done missing = exec(Map.of("XDG_CACHE_HOME", dir.resolve("blocker").toString()), launcher, "status", "--url",
                "http://127.0.0.1:1");
        assertThat(missing.out()).isEqualTo(statusPlain.out());
    }
}
