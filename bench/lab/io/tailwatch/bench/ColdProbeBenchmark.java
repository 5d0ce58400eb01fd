package io.tailwatch.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.probe.PromptFactory;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cold probe against curl on the same simulator request, one process each: `tailwatch probe` run
 * through the release launcher (a fresh JVM per probe, with and without the probe warm-up), and the
 * daemon's first and second probe after start (a fresh daemon per round, with and without), each
 * paired with a curl run of the same request right after it; the daemon's second probe also with a
 * curl run after the simulator sat idle as long as it did before that probe. curl's figures come from its own trace clock
 * ({@code --trace-time}): from the first trace line (connecting) to the first response header, to the
 * first data that carries content, and to the end marker. Run with bench/probe-accuracy.sh cold.
 *
 * <p>Arguments: launcher (bin/tailwatch of an unpacked bundle), rounds (8), API (openai), which clients
 * (both, cli or daemon).
 */
public final class ColdProbeBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TRACE = Pattern.compile("^(\\d\\d):(\\d\\d):(\\d\\d\\.\\d+) (.*)$");
    private static final Pattern DUMP = Pattern.compile("^[0-9a-f]{4}: (.*)$");
    private static final Pattern CONTENT = Pattern.compile("\"(content|response)\":\"[^\"]");
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
    static final int TTFT_MS = 200;
    static final double TOKENS_PER_SECOND = 100;
    /** About the time the simulator sits idle before the daemon's second probe (probe interval 10 s). */
    static final long IDLE_MS = 10_000;

    /** Time to headers, to first content and to the end of the stream, in ms, or null for a failed run. */
    record Figures(double headers, double ttft, double e2e) {
    }

    public static void main(String[] args) throws Exception {
        Path launcher = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        String api = args.length > 2 ? args[2] : "openai";
        String which = args.length > 3 ? args[3] : "both";
        SimulatorOptions o = SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(TTFT_MS), TOKENS_PER_SECOND);
        try (EngineSimulator sim = EngineSimulator.start(api, "127.0.0.1", 0, o)) {
            String url = "http://127.0.0.1:" + sim.port();
            System.out.printf(Locale.ROOT, "%s simulator on %s: TTFT %d ms, %.0f tokens/s, 32 output tokens, 64 prompt "
                    + "tokens; %d rounds; JDK %s, %d CPUs; load average %s%n", api, url, TTFT_MS, TOKENS_PER_SECOND,
                    rounds, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), load());
            for (int i = 0; i < 3; i++) {
                curl(url, api, o.model()); // warms the simulator
            }
            Map<String, List<Figures>> runs = new LinkedHashMap<>();
            Map<String, List<Figures>> pairs = new LinkedHashMap<>();
            for (int i = 0; i < (which.equals("daemon") ? 0 : rounds); i++) {
                for (boolean warm : i % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    String name = "CLI `probe`, warm-up " + (warm ? "on" : "off");
                    add(runs, pairs, name, cli(launcher, url, api, o.model(), warm), curl(url, api, o.model()));
                }
            }
            for (int i = 0; i < (which.equals("cli") ? 0 : rounds); i++) {
                for (boolean warm : i % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    Figures[] d = daemon(launcher, url, api, o.model(), warm);
                    Figures c = curl(url, api, o.model());
                    // The daemon's second probe meets a simulator that has been idle for about 10 s, curl right after
                    // it a warm one; curl again after the same idle time is the like-for-like pair.
                    Thread.sleep(IDLE_MS);
                    Figures idle = curl(url, api, o.model());
                    add(runs, pairs, "daemon's first probe, warm-up " + (warm ? "on" : "off"), d[0], c);
                    add(runs, pairs, "daemon's second probe, warm-up " + (warm ? "on" : "off"), d[1], c);
                    add(runs, pairs, "daemon's second probe, warm-up " + (warm ? "on" : "off") + ", against curl after "
                            + IDLE_MS / 1000 + " s idle", d[1], idle);
                }
            }
            System.out.printf(Locale.ROOT, "%nload average after: %s%n%n", load());
            System.out.println("| client (runs) | headers ms, median (min-max) | TTFT ms | e2e ms "
                    + "| TTFT - curl's, median (min-max) | e2e - curl's | headers - curl's |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (String name : runs.keySet()) {
                List<Figures> r = runs.get(name);
                List<Figures> c = pairs.get(name);
                System.out.printf(Locale.ROOT, "| %s (%d) | %s | %s | %s | %s | %s | %s |%n", name, r.size(),
                        spread(r, Figures::headers), spread(r, Figures::ttft), spread(r, Figures::e2e),
                        diff(r, c, Figures::ttft), diff(r, c, Figures::e2e), diff(r, c, Figures::headers));
                System.out.printf(Locale.ROOT, "| curl %s (%d) | %s | %s | %s | | | |%n",
                        name.contains(" idle") ? "after " + IDLE_MS / 1000 + " s idle" : "right after", c.size(),
                        spread(c, Figures::headers), spread(c, Figures::ttft), spread(c, Figures::e2e));
            }
        }
    }

    private static void add(Map<String, List<Figures>> runs, Map<String, List<Figures>> pairs, String name,
                            Figures run, Figures curl) {
        if (run == null || curl == null) {
            System.err.println(name + ": a run failed; round left out");
            return;
        }
        runs.computeIfAbsent(name, k -> new ArrayList<>()).add(run);
        pairs.computeIfAbsent(name, k -> new ArrayList<>()).add(curl);
    }

    /** One `tailwatch probe --json` through the launcher (a fresh JVM). */
    static Figures cli(Path launcher, String url, String api, String model, boolean warm) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "probe", "--url", url, "--api", api, "--model", model,
                "--json");
        env(pb, warm);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            return null;
        }
        return figures(JSON.readTree(out));
    }

    /**
     * A fresh daemon watching the simulator: its first probe's figures (a cold one, 1 to 5 s after the
     * start) and its second's (warm, 10 s later), each null when it failed, from /api/v1/status; then it is stopped.
     */
    static Figures[] daemon(Path launcher, String url, String api, String model, boolean warm) throws Exception {
        Path dir = Files.createTempDirectory("tailwatch-cold");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, """
                engines:
                  - name: sim
                    api: %s
                    url: %s
                    model: %s
                    health: {interval: 15s, timeout: 2s}
                    scenarios:
                      - {name: interactive, interval: 10s, prompt_tokens: 64, max_tokens: 32, timeouts: {connect: 1s, first_token: 5s, total: 8s}}
                alerts:
                  baseline: {file: %s}
                """.formatted(api, url, model, dir.resolve("baselines.json")));
        Path log = dir.resolve("daemon.log");
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "run", "--config", config.toString(), "--listen",
                "127.0.0.1:0");
        env(pb, warm);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            // The first probe runs 1 to 5 s after the engine monitor starts (interval 10 s), the second 9 s or more
            // after it. The status is read once it is surely done, so that no status request competes with it.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            int port = -1;
            while (port < 0 && System.nanoTime() < end && p.isAlive()) {
                Matcher m = LISTENING.matcher(Files.readString(log));
                port = m.find() ? Integer.parseInt(m.group(2)) : -1;
                Thread.sleep(20);
            }
            Thread.sleep(6500);
            Figures[] out = new Figures[2];
            java.time.Instant firstAt = null;
            while (port > 0 && System.nanoTime() < end && p.isAlive()) {
                JsonNode last = last(port);
                if (last != null && firstAt == null) {
                    firstAt = java.time.Instant.parse(last.path("at").asText());
                    out[0] = last.path("success").asBoolean() ? figures(last) : null;
                    // The second probe starts 9 to 11 s after the first and takes about 0.5 s.
                    long wait = java.time.Duration.between(java.time.Instant.now(), firstAt.plusMillis(12_500)).toMillis();
                    Thread.sleep(Math.max(0, wait));
                } else if (last != null && !java.time.Instant.parse(last.path("at").asText()).equals(firstAt)) {
                    out[1] = last.path("success").asBoolean() ? figures(last) : null;
                    return out;
                } else {
                    Thread.sleep(500);
                }
            }
            return out;
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** The first scenario's last probe from the daemon's status API, or null while there is none. */
    private static JsonNode last(int port) {
        HttpTransport.JsonReply r = HttpTransport.json(URI.create("http://127.0.0.1:" + port + "/api/v1/status"),
                null, null, Duration.ofSeconds(2), Duration.ofSeconds(5));
        JsonNode last = r.ok() ? r.body().at("/engines/0/scenarios/0/last") : null;
        return last != null && last.isObject() ? last : null;
    }

    private static void env(ProcessBuilder pb, boolean warm) {
        pb.environment().remove("TAILWATCH_JAVA_OPTS");
        if (!warm) {
            pb.environment().put("TAILWATCH_JAVA_OPTS", "-Dtailwatch.probe.warmup=false");
        }
    }

    private static Figures figures(JsonNode j) {
        return new Figures(j.path("time_to_headers_seconds").asDouble() * 1e3, j.path("ttft_seconds").asDouble() * 1e3,
                j.path("e2e_seconds").asDouble() * 1e3);
    }

    /** The probe's own request (same body shape, a 64-token prompt with a fresh nonce) sent by curl, timed by its trace. */
    static Figures curl(String url, String api, String model) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        body.putArray("messages").addObject().put("role", "user").put("content", PromptFactory.prompt(64));
        body.put("stream", true);
        String path;
        String accept;
        if (api.equals("openai")) {
            body.putObject("stream_options").put("include_usage", true);
            body.put("max_tokens", 32);
            body.put("temperature", 0.0);
            path = "/v1/chat/completions";
            accept = "text/event-stream";
        } else {
            body.putObject("options").put("temperature", 0.0).put("num_predict", 32);
            path = "/api/chat";
            accept = "application/x-ndjson";
        }
        ProcessBuilder pb = new ProcessBuilder("curl", "-sN", "--trace-ascii", "-", "--trace-time", "-o", "/dev/null",
                "-H", "Content-Type: application/json", "-H", "Accept: " + accept, "--data-binary", body.toString(),
                url + path);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String trace = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            return null;
        }
        return parseTrace(trace);
    }

    /** Figures from a curl --trace-ascii --trace-time log: each entry's time, and the data it dumped. */
    static Figures parseTrace(String trace) {
        double start = -1;
        double headers = -1;
        double first = -1;
        double done = -1;
        double at = -1;
        String kind = "";
        StringBuilder data = new StringBuilder();
        for (String line : (trace + "\n00:00:00.000000 == end").split("\n")) {
            Matcher t = TRACE.matcher(line);
            if (t.matches()) {
                if (kind.startsWith("<= Recv data")) {
                    if (first < 0 && CONTENT.matcher(data).find()) {
                        first = at;
                    }
                    if (data.indexOf("[DONE]") >= 0 || data.indexOf("\"done\":true") >= 0) {
                        done = at;
                    }
                }
                at = Integer.parseInt(t.group(1)) * 3600 + Integer.parseInt(t.group(2)) * 60 + Double.parseDouble(t.group(3));
                kind = t.group(4);
                data.setLength(0);
                if (start < 0) {
                    start = at;
                }
                if (headers < 0 && kind.startsWith("<= Recv header")) {
                    headers = at;
                }
                continue;
            }
            Matcher d = DUMP.matcher(line);
            if (d.matches()) {
                data.append(d.group(1));
            }
        }
        if (headers < 0 || first < 0 || done < 0) {
            return null;
        }
        return new Figures((headers - start) * 1e3, (first - start) * 1e3, (done - start) * 1e3);
    }

    interface Field {
        double of(Figures f);
    }

    private static String spread(List<Figures> l, Field f) {
        double[] v = l.stream().mapToDouble(f::of).sorted().toArray();
        return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", median(v), v[0], v[v.length - 1]);
    }

    private static String diff(List<Figures> a, List<Figures> b, Field f) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.of(a.get(i)) - f.of(b.get(i));
        }
        java.util.Arrays.sort(v);
        return String.format(Locale.ROOT, "%+.1f (%+.1f to %+.1f)", median(v), v[0], v[v.length - 1]);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
