package io.tailwatch.core.host.selfcheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.host.BlockedSampler;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.metrics.AttrValues.SamplerState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native self-check: before the daemon makes a native sampler's calls on an OS build it has not seen,
 * the same calls run in a short child JVM ({@link SelfCheckChild}). What each probe did is recorded in
 * the data directory per OS build ({@value #FILE}); a probe that crashed or hung the child keeps its
 * samplers out of the daemon ({@link BlockedSampler}), every other one runs. On a known build nothing is
 * started: the record is read. {@code doctor} runs the check afresh.
 */
public final class NativeSelfCheck {
    private static final Logger LOG = LoggerFactory.getLogger(NativeSelfCheck.class);
    static final String FILE = "native-selfcheck.json";
    /** The child's output read at most (a JVM crash report on stdout is a few KiB). */
    static final int MAX_OUTPUT = 64 * 1024;
    static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(20);
    private static final Pattern SIGNAL = Pattern.compile("#\\s+(SIG[A-Z]+) \\(0x[0-9a-f]+\\)");
    private static final Pattern FRAME = Pattern.compile("#\\s+([CjJvV]\\s+\\[[^\\]]{1,200}\\][^\\n]{0,200})");

    /** What one probe did in the child. */
    public enum Status {
        /** Returned: the calls are safe here. */
        PASSED,
        /** Threw: the calls fail here but do not crash (the sampler runs and reports its error). */
        FAILED,
        /** The child died while the probe ran (a signal, an abort, an exit). */
        CRASHED,
        /** The probe did not return within the deadline; the child was killed. */
        TIMED_OUT,
        /**
         * The calls returned, but what they read does not fit the documented layout ({@link NativeProbe.WrongLayout}):
         * the samplers would export wrong figures, so they stay out like a crashed probe's.
         */
        REJECTED;

        /** Whether the samplers of a probe with this status stay out of the daemon. */
        public boolean blocks() {
            return this == CRASHED || this == TIMED_OUT || this == REJECTED;
        }

        SamplerState samplerState() {
            return switch (this) {
                case TIMED_OUT -> SamplerState.TIMED_OUT;
                case REJECTED -> SamplerState.REJECTED;
                default -> SamplerState.CRASHED;
            };
        }

        /** How the status reads in a log line or a sampler's reason. */
        String verb() {
            return switch (this) {
                case TIMED_OUT -> "hung";
                case REJECTED -> "read values that do not fit the documented layout in";
                default -> "crashed";
            };
        }
    }

    /** One probe's result; {@code detail} says what went wrong (null when it passed). */
    public record Result(String id, Status status, String detail, long millis) {
    }

    /**
     * The results of one check: by probe id, the OS build they hold for, whether a child was started
     * for it (false: read from the record) and how long the children took in all.
     */
    public record Report(String build, Map<String, Result> results, boolean ranChild, int children, Duration took) {
        public Report {
            results = Map.copyOf(new LinkedHashMap<>(results));
        }

        public static final Report NONE = new Report("", Map.of(), false, 0, Duration.ZERO);
    }

    private final Path dataDir;
    private final String build;
    private final String providerClass;
    private final Duration probeTimeout;
    private final List<String> childJvmOptions;

    /**
     * @param dataDir       where {@value #FILE} is kept
     * @param build         the OS build and agent version the results hold for ({@link #osBuild()})
     * @param providerClass the {@code NativeProbes} implementation the child builds
     */
    public NativeSelfCheck(Path dataDir, String build, String providerClass, Duration probeTimeout) {
        this(dataDir, build, providerClass, probeTimeout, List.of());
    }

    NativeSelfCheck(Path dataDir, String build, String providerClass, Duration probeTimeout, List<String> childJvmOptions) {
        this.dataDir = dataDir;
        this.build = build;
        this.providerClass = providerClass;
        this.probeTimeout = probeTimeout;
        this.childJvmOptions = List.copyOf(childJvmOptions);
    }

    public NativeSelfCheck(Path dataDir, String build, String providerClass) {
        this(dataDir, build, providerClass, DEFAULT_PROBE_TIMEOUT);
    }

    /** The probe ids the samplers name, in order, each once. */
    public static List<String> probeIds(List<Sampler> samplers) {
        Set<String> ids = new LinkedHashSet<>();
        for (Sampler s : samplers) {
            if (s instanceof NativeSampler n && n.probeId() != null) {
                ids.add(n.probeId());
            }
        }
        return List.copyOf(ids);
    }

    /**
     * At boot: the recorded results for this build, with a child started only for probes the record
     * does not have; what the child found is added to the record.
     */
    public Report atBoot(List<String> ids) {
        if (ids.isEmpty()) {
            return Report.NONE;
        }
        Map<String, Result> known = readRecord();
        List<String> missing = ids.stream().filter(id -> !known.containsKey(id)).toList();
        if (missing.isEmpty()) {
            Map<String, Result> out = new LinkedHashMap<>();
            ids.forEach(id -> out.put(id, known.get(id)));
            return new Report(build, out, false, 0, Duration.ZERO);
        }
        Report fresh = run(missing);
        Map<String, Result> all = new LinkedHashMap<>(known);
        all.putAll(fresh.results());
        writeRecord(all, fresh.results().keySet());
        Map<String, Result> out = new LinkedHashMap<>();
        ids.forEach(id -> out.put(id, all.get(id)));
        logOutcome(fresh);
        return new Report(build, out, true, fresh.children(), fresh.took());
    }

    /** Runs every probe again in a child, whatever the record says, and records the results (doctor). */
    public Report afresh(List<String> ids) {
        if (ids.isEmpty()) {
            return Report.NONE;
        }
        Report fresh = run(ids);
        Map<String, Result> all = new LinkedHashMap<>(readRecord());
        all.putAll(fresh.results());
        writeRecord(all, fresh.results().keySet());
        logOutcome(fresh);
        return fresh;
    }

    /** The samplers with those whose probe blocks replaced by a {@link BlockedSampler}. */
    public static List<Sampler> gate(List<Sampler> samplers, Report report) {
        List<Sampler> out = new ArrayList<>(samplers.size());
        for (Sampler s : samplers) {
            Result r = s instanceof NativeSampler n && n.probeId() != null ? report.results().get(n.probeId()) : null;
            if (r != null && r.status().blocks()) {
                out.add(new BlockedSampler(s.name(), r.id(), r.status().samplerState(), reason(r, report.build())));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    static String reason(Result r, String build) {
        return "not run: its native probe " + r.id() + " " + r.status().verb() + " the self-check process on " + build
                + (r.detail() == null ? "" : " (" + r.detail() + ")");
    }

    private void logOutcome(Report fresh) {
        LOG.info("native self-check on {}: {} probe(s) in {} child process(es), {} ms", LogGuard.escape(build, 200),
                fresh.results().size(), fresh.children(), fresh.took().toMillis());
        for (Result r : fresh.results().values()) {
            if (r.status().blocks()) {
                LOG.warn("native probe {} {} the self-check process on {}; its samplers are not run: {}", r.id(),
                        r.status().verb(), LogGuard.escape(build, 200),
                        LogGuard.escape(String.valueOf(r.detail()), 400));
            } else if (r.status() == Status.FAILED) {
                LOG.info("native probe {} fails on this machine (safe to run): {}", r.id(), LogGuard.escape(String.valueOf(r.detail()), 400));
            }
        }
    }

    /** Runs the probes in as many children as it takes: a child that died is followed by one for the probes after. */
    Report run(List<String> ids) {
        long start = System.nanoTime();
        Map<String, Result> results = new LinkedHashMap<>();
        List<String> remaining = new ArrayList<>(ids);
        int children = 0;
        while (!remaining.isEmpty() && children < ids.size()) {
            children++;
            runChild(remaining, results);
            remaining.removeIf(results::containsKey);
        }
        for (String id : remaining) {
            results.put(id, new Result(id, Status.FAILED, "the self-check process ended before this probe", 0));
        }
        return new Report(build, results, true, children, Duration.ofNanos(System.nanoTime() - start));
    }

    private List<String> command(List<String> ids, Path errorDir) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx24m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + errorDir.resolve("hs_err_%p.log"),
                "-Djna.protected=false", "-Djava.awt.headless=true"));
        cmd.addAll(childJvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SelfCheckChild.class.getName());
        cmd.add(providerClass);
        cmd.addAll(ids);
        return cmd;
    }

    /** One child over {@code ids}; fills in what it learnt. */
    private void runChild(List<String> ids, Map<String, Result> results) {
        Path errorDir;
        try {
            errorDir = Files.createTempDirectory("tailwatch-selfcheck");
        } catch (IOException e) {
            ids.forEach(id -> results.put(id, new Result(id, Status.FAILED, "no temporary directory for the self-check: " + e.getMessage(), 0)));
            return;
        }
        Process p;
        try {
            p = new ProcessBuilder(command(ids, errorDir)).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            deleteTree(errorDir);
            ids.forEach(id -> results.put(id, new Result(id, Status.FAILED, "the self-check process could not start: " + e.getMessage(), 0)));
            return;
        }
        ChildOutput out = new ChildOutput(p.getInputStream());
        Thread reader = new Thread(out, "tailwatch-selfcheck-reader");
        reader.setDaemon(true);
        reader.start();
        boolean timedOut = false;
        try {
            while (!p.waitFor(50, TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() - out.lastProgressNanos() > probeTimeout.toNanos()) {
                    timedOut = true;
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                    break;
                }
            }
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            timedOut = true;
        }
        String text = out.text();
        for (ChildOutput.Line l : out.lines()) {
            if (l.status() != null) {
                results.put(l.id(), new Result(l.id(), l.status(), l.detail(), l.millis()));
            }
        }
        String running = out.running();
        if (running != null && !results.containsKey(running)) {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - out.lastProgressNanos());
            if (timedOut) {
                results.put(running, new Result(running, Status.TIMED_OUT, "no answer within " + probeTimeout.toMillis() + " ms; killed", millis));
            } else {
                results.put(running, new Result(running, Status.CRASHED, crashDetail(p, text), millis));
            }
        } else if (!out.begun() && !timedOut && !p.isAlive()) {
            String tail = text.length() > 300 ? text.substring(text.length() - 300) : text;
            ids.forEach(id -> results.put(id, new Result(id, Status.FAILED,
                    "the self-check process exited with " + p.exitValue() + " before any probe: " + tail.strip(), 0)));
        }
        deleteTree(errorDir);
    }

    /** The signal and the problematic frame from the JVM's crash report, or the exit status. */
    static String crashDetail(Process p, String text) {
        StringBuilder b = new StringBuilder();
        Matcher sig = SIGNAL.matcher(text);
        if (sig.find()) {
            b.append(sig.group(1));
        }
        Matcher frame = FRAME.matcher(text);
        if (frame.find()) {
            b.append(b.length() > 0 ? " in " : "").append(frame.group(1).strip());
        }
        int code = p.isAlive() ? -1 : p.exitValue();
        if (b.length() == 0) {
            b.append(code > 128 ? "killed by signal " + (code - 128) : "the process exited with status " + code);
        } else {
            b.append(", exit status ").append(code);
        }
        String s = b.toString().replaceAll("[\\p{Cntrl}]", " ");
        return s.length() > 400 ? s.substring(0, 400) : s;
    }

    /** The probe lines and the raw text of one child's output, read in a bounded way. */
    static final class ChildOutput implements Runnable {
        record Line(String id, Status status, String detail, long millis) {
        }

        private final InputStream in;
        private final StringBuilder text = new StringBuilder();
        private final List<Line> lines = new ArrayList<>();
        private volatile long lastProgress = System.nanoTime();
        private String running;
        private long runningSince;
        private boolean begun;

        ChildOutput(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            byte[] buf = new byte[4096];
            StringBuilder line = new StringBuilder();
            int total = 0;
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    String chunk = new String(buf, 0, n, StandardCharsets.UTF_8);
                    for (int i = 0; i < chunk.length(); i++) {
                        char c = chunk.charAt(i);
                        if (c == '\n') {
                            take(line.toString());
                            line.setLength(0);
                        } else if (line.length() < 1000) {
                            line.append(c);
                        }
                    }
                    synchronized (this) {
                        if (total < MAX_OUTPUT) {
                            text.append(chunk, 0, Math.min(chunk.length(), MAX_OUTPUT - total));
                            total += n;
                        }
                    }
                }
                if (line.length() > 0) {
                    take(line.toString());
                }
            } catch (IOException e) {
                // the child is gone; what was read is what there is
            }
        }

        private synchronized void take(String l) {
            if (!l.startsWith(SelfCheckChild.PREFIX)) {
                return;
            }
            String[] parts = l.substring(SelfCheckChild.PREFIX.length()).split(" ", 3);
            if (parts.length < 2) {
                return;
            }
            long now = System.nanoTime();
            lastProgress = now;
            String id = parts[1];
            long millis = TimeUnit.NANOSECONDS.toMillis(now - runningSince);
            switch (parts[0]) {
                case "begin" -> {
                    begun = true;
                    running = id;
                    runningSince = now;
                }
                case "pass" -> {
                    lines.add(new Line(id, Status.PASSED, null, millis));
                    running = null;
                }
                case "fail" -> {
                    lines.add(new Line(id, Status.FAILED, parts.length > 2 ? parts[2] : "failed", millis));
                    running = null;
                }
                case "reject" -> {
                    lines.add(new Line(id, Status.REJECTED, parts.length > 2 ? parts[2] : "wrong layout", millis));
                    running = null;
                }
                default -> {
                }
            }
        }

        long lastProgressNanos() {
            return lastProgress;
        }

        synchronized boolean begun() {
            return begun;
        }

        synchronized String running() {
            return running;
        }

        synchronized List<Line> lines() {
            return List.copyOf(lines);
        }

        synchronized String text() {
            return text.toString();
        }
    }

    private Path file() {
        return dataDir.resolve(FILE);
    }

    /** The record's results for this build; empty when it has none (another build, no file, unreadable). */
    Map<String, Result> readRecord() {
        Map<String, Result> out = new LinkedHashMap<>();
        Path f = file();
        if (!Files.isRegularFile(f)) {
            return out;
        }
        try {
            if (Files.size(f) > 256 * 1024) {
                LOG.warn("{} is larger than 256 KiB; checking again", f);
                return out;
            }
            JsonNode root = Json.MAPPER.readTree(Files.readAllBytes(f));
            if (!build.equals(root.path("build").asText(null))) {
                return out;
            }
            JsonNode probes = root.path("probes");
            for (java.util.Iterator<Map.Entry<String, JsonNode>> it = probes.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                Status st;
                try {
                    st = Status.valueOf(e.getValue().path("status").asText("").toUpperCase(java.util.Locale.ROOT));
                } catch (IllegalArgumentException bad) {
                    continue;
                }
                String detail = e.getValue().hasNonNull("detail") ? e.getValue().get("detail").asText() : null;
                out.put(e.getKey(), new Result(e.getKey(), st, detail, e.getValue().path("millis").asLong(0)));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("{} cannot be read ({}); checking again", f, LogGuard.escape(e.getMessage(), 200));
            out.clear();
        }
        return out;
    }

    /**
     * Writes the record (atomically). A probe that failed only because no child could be started is left
     * out, so the next boot tries again.
     */
    private void writeRecord(Map<String, Result> all, Set<String> fresh) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("build", build);
        root.put("checked", java.time.Instant.now().toString());
        ObjectNode probes = root.putObject("probes");
        for (Result r : all.values()) {
            if (fresh.contains(r.id()) && r.status() == Status.FAILED && r.detail() != null
                    && r.detail().startsWith("the self-check process")) {
                continue;
            }
            ObjectNode n = probes.putObject(r.id());
            n.put("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
            if (r.detail() != null) {
                n.put("detail", r.detail());
            }
            n.put("millis", r.millis());
        }
        try {
            Files.createDirectories(dataDir);
            Path tmp = Files.createTempFile(dataDir, FILE, ".tmp");
            Files.write(tmp, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("cannot record the native self-check in {}: {}", file(), LogGuard.escape(e.getMessage(), 200));
        }
    }

    private static void deleteTree(Path dir) {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a leftover in the temporary directory
                }
            });
        } catch (IOException e) {
            // nothing to clean
        }
    }

    /**
     * The OS build the results hold for, read from files (no native call before the check): macOS
     * {@code ProductVersion} and {@code ProductBuildVersion} of SystemVersion.plist; Linux the kernel's
     * release and version; else {@code os.name os.version}.
     */
    public static String osBuild() {
        Path plist = Path.of("/System/Library/CoreServices/SystemVersion.plist");
        try {
            if (Files.isRegularFile(plist)) {
                String x = Files.readString(plist, StandardCharsets.UTF_8);
                String v = plistString(x, "ProductVersion");
                String b = plistString(x, "ProductBuildVersion");
                if (b != null) {
                    return "macOS " + (v == null ? "" : v + " ") + "(" + b + ")";
                }
            }
            Path rel = Path.of("/proc/sys/kernel/osrelease");
            if (Files.isRegularFile(rel)) {
                String version = "";
                Path ver = Path.of("/proc/sys/kernel/version");
                if (Files.isRegularFile(ver)) {
                    version = " " + Files.readString(ver, StandardCharsets.UTF_8).strip();
                }
                return "Linux " + Files.readString(rel, StandardCharsets.UTF_8).strip() + version;
            }
        } catch (IOException | RuntimeException e) {
            // fall through to the JVM's view
        }
        return System.getProperty("os.name", "?") + " " + System.getProperty("os.version", "?");
    }

    static String plistString(String plist, String key) {
        Matcher m = Pattern.compile("<key>" + Pattern.quote(key) + "</key>\\s*<string>([^<]{1,100})</string>").matcher(plist);
        return m.find() ? m.group(1).strip() : null;
    }
}
