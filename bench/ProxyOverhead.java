import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * The engine reached directly and through the agent's proxy, in one run, request by request alternately, at
 * a given concurrency: time to the first content chunk and to the end of the stream, the agent's CPU time
 * over the run (from /proc/PID/stat) per 1,000 tokens forwarded, and with the stamping engine the time each
 * chunk takes from the engine's write to the client's read.
 *
 * <pre>
 * java bench/ProxyOverhead.java run LABEL DIRECT_PORT PROXY_PORT AGENT_PID CONCURRENCY REQUESTS MAX_TOKENS [STAMP_PORT]
 * java bench/ProxyOverhead.java race CONCURRENCY REQUESTS MAX_TOKENS STAMP_PORT LABEL PORT PID [LABEL PORT PID]...
 * java bench/ProxyOverhead.java hold PROXY_PORT AGENT_PID STREAMS MAX_TOKENS
 * java bench/ProxyOverhead.java relay LISTEN_PORT TARGET_PORT
 * </pre>
 * With STAMP_PORT, this JVM serves the stamping engine there (an OpenAI-style SSE stream whose every chunk
 * carries the System.nanoTime of its write, 1 ms apart) and DIRECT_PORT must be that same port, so the
 * engine's and the client's clocks are one. {@code hold} opens STREAMS streams through the proxy at once and,
 * while all of them are open, prints the agent's resident set and heap (jcmd GC.heap_info). {@code relay} is
 * the floor any proxy on this machine stands on: a plain TCP relay (a thread per direction, blocking copies,
 * no HTTP at all) from LISTEN_PORT to TARGET_PORT, to be measured with {@code run} as the proxy.
 * <p>{@code race} measures several proxies in one run, each request of a worker going direct and through every
 * proxy in turn (the order rotating per worker and request), so that every path sees the same machine at the same
 * time: one proxy's figure measured minutes before another's moves with whatever else ran then (nginx's own added
 * time to first token swings from 0.04 to 0.57 ms between runs of the same binary here). The workers are
 * CONCURRENCY x (proxies + 1) / 2, so each path sees CONCURRENCY / 2 streams at once on average, as it does in a
 * {@code run} of one proxy (CONCURRENCY 1: one worker, one stream at a time on the machine). Before the measured
 * rounds the same rounds run unrecorded, RACE_WARM requests each way (default 600): this JVM's own compiler threads
 * (the clients' and the engine's code) otherwise run through the race on the two cores the proxies share, and
 * their CPU in the measured rounds is printed. It prints each proxy's figures as {@code run} does, with the time to
 * first token split in two legs (the first chunk carries the time the engine's handler began: the request's way
 * from the client's send to the engine, and the first chunk's way from the engine's write to the client's read), then
 * each later proxy against the first: the added time to first token and per chunk at the median as a ratio, the time
 * to first token's p99 over direct, and the CPU per 1,000 tokens as a ratio.
 */
public class ProxyOverhead {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final long STAMP_GAP_NANOS = 1_000_000;

    /**
     * One request's figures: ms to the first content chunk and to the end, the chunks, each chunk's engine-write to
     * client-read time in us (stamped engine), and the first token's time split in two (stamped engine, else NaN): ms
     * from the client's send to the engine's handler (the request's way there) and from the engine's write of the
     * first chunk to the client's read of it (the first chunk's way back, with the answer's headers).
     */
    record Run(double ttft, double e2e, int chunks, List<Double> chunkMicros, double requestLeg, double firstLeg) {
    }

    static String body(int maxTokens) {
        return "{\"model\":\"mlx-community/Sim-Llama-3-8B-4bit\",\"stream\":true,\"max_tokens\":" + maxTokens
                + ",\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
    }

    /**
     * llama-server closes its connection after every streamed answer without saying so; a client that kept
     * it would send the next request into the close. Against it every request has its own connection
     * (CLOSE=1; needs -Djdk.httpclient.allowRestrictedHeaders=connection), both ways alike.
     */
    static final boolean CLOSE = "1".equals(System.getenv("CLOSE"));

    static Run one(int port, int maxTokens, boolean stamped) throws Exception {
        long t0 = System.nanoTime();
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"));
        if (CLOSE) {
            req.header("Connection", "close");
        }
        HttpResponse<InputStream> r = HTTP.send(req.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(maxTokens))).build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("port " + port + " answered " + r.statusCode());
        }
        long first = -1;
        double requestLeg = Double.NaN;
        double firstLeg = Double.NaN;
        int chunks = 0;
        List<Double> lat = stamped ? new ArrayList<>() : List.of();
        StringBuilder line = new StringBuilder();
        try (InputStream in = r.body()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                long now = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        if (line.indexOf("\"content\"") >= 0) {
                            chunks++;
                            String l = line.toString();
                            long written = stamped && l.contains("\"t\":") ? stamp(l, "\"t\":") : -1;
                            if (first < 0) {
                                first = now;
                                if (written >= 0) {
                                    firstLeg = (now - written) / 1e6;
                                    requestLeg = (stamp(l, "\"r\":") - t0) / 1e6;
                                }
                            }
                            if (written >= 0) {
                                lat.add((now - written) / 1e3);
                            }
                        }
                        line.setLength(0);
                    } else {
                        line.append((char) buf[i]);
                    }
                }
            }
        }
        return new Run((first - t0) / 1e6, (System.nanoTime() - t0) / 1e6, chunks, lat, requestLeg, firstLeg);
    }

    /** The number after {@code key} in a chunk's line (a nanoTime the engine stamped). */
    static long stamp(String s, String key) {
        int at = s.indexOf(key) + key.length();
        int end = at;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return Long.parseLong(s.substring(at, end));
    }

    /** The stamping engine: each chunk is written and flushed with the nanoTime of its write. */
    static HttpServer stampEngine(int port) throws Exception {
        // As the engines do (uvicorn, Ollama): no Nagle delay on the engine's small writes.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        s.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "stamp-engine");
            t.setDaemon(true);
            return t;
        }));
        s.createContext("/", x -> {
            long received = System.nanoTime();
            String req = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            int at = req.indexOf("\"max_tokens\":");
            int tokens = 64;
            if (at >= 0) {
                int end = at + 13;
                while (end < req.length() && Character.isDigit(req.charAt(end))) {
                    end++;
                }
                tokens = Integer.parseInt(req.substring(at + 13, end));
            }
            x.getResponseHeaders().set("Content-Type", "text/event-stream");
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
                long next = System.nanoTime();
                for (int i = 0; i < tokens; i++) {
                    LockSupport.parkNanos(next - System.nanoTime());
                    next += STAMP_GAP_NANOS;
                    // The first chunk also carries when the engine's handler began ("r").
                    out.write(("data: {\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[{\"index\":0,"
                            + "\"delta\":{\"content\":\"tok\"}}]," + (i == 0 ? "\"r\":" + received + "," : "")
                            + "\"t\":" + System.nanoTime() + "}\n\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                out.write(("data: {\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[],\"usage\":"
                        + "{\"prompt_tokens\":1,\"completion_tokens\":" + tokens + ",\"total_tokens\":" + (tokens + 1)
                        + "}}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        s.start();
        return s;
    }

    /** The process's user and system CPU time so far, in ticks (utime and stime of /proc/PID/stat). */
    static long[] userSystemTicks(String pid) throws Exception {
        String[] f = Files.readString(Path.of("/proc/" + pid + "/stat")).split("\\) ")[1].split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    /**
     * CPU ticks so far of the process's JIT compiler threads (C1 and C2 CompilerThread*), summed; 0 for a process
     * that has none (nginx) or whose threads cannot be read. A JVM still compiling during a run pays for it in that run.
     */
    static long compilerTicks(String pid) {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm"));
                    if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                        String[] f = Files.readString(t.resolve("stat")).split("\\) ")[1].split(" ");
                        sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    }
                } catch (java.io.IOException | RuntimeException gone) {
                    // A thread that ended meanwhile.
                }
            }
        } catch (java.io.IOException e) {
            return 0;
        }
        return sum;
    }

    static long rssKib(String pid) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    static String heap(String pid) throws Exception {
        Process p = new ProcessBuilder("jcmd", pid, "GC.heap_info").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        StringBuilder b = new StringBuilder();
        for (String l : out.split("\n")) {
            if (l.contains("total") && l.contains("used")) {
                b.append(l.trim()).append("; ");
            }
        }
        return b.toString();
    }

    static double pct(List<Double> v, double p) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.get((int) Math.min(s.size() - 1, Math.max(0, Math.ceil(p * s.size()) - 1)));
    }

    public static void main(String[] a) throws Exception {
        if (a[0].equals("relay")) {
            relay(Integer.parseInt(a[1]), Integer.parseInt(a[2]));
            return;
        }
        if (a[0].equals("hold")) {
            hold(Integer.parseInt(a[1]), a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]));
            return;
        }
        if (a[0].equals("race")) {
            try {
                race(a);
            } catch (Exception | Error e) {
                // The engine's server threads would keep this JVM alive, and the script waiting on it.
                e.printStackTrace();
                System.exit(1);
            }
            System.exit(0);
        }
        String label = a[1];
        int direct = Integer.parseInt(a[2]);
        int proxy = Integer.parseInt(a[3]);
        String pid = a[4];
        int conc = Integer.parseInt(a[5]);
        int requests = Integer.parseInt(a[6]);
        int maxTokens = Integer.parseInt(a[7]);
        boolean stamped = a.length > 8;
        HttpServer engine = stamped ? stampEngine(Integer.parseInt(a[8])) : null;
        for (int i = 0; i < 20; i++) { // warm-up of both paths
            one(direct, maxTokens, stamped);
            one(proxy, maxTokens, stamped);
        }
        ExecutorService pool = Executors.newFixedThreadPool(conc);
        List<Double> dT = Collections.synchronizedList(new ArrayList<>());
        List<Double> pT = Collections.synchronizedList(new ArrayList<>());
        List<Double> dE = Collections.synchronizedList(new ArrayList<>());
        List<Double> pE = Collections.synchronizedList(new ArrayList<>());
        List<Double> dC = Collections.synchronizedList(new ArrayList<>());
        List<Double> pC = Collections.synchronizedList(new ArrayList<>());
        long[] tokens = new long[1];
        long[] us0 = userSystemTicks(pid);
        long cpu0 = us0[0] + us0[1];
        long jit0 = compilerTicks(pid);
        long w0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < conc; w++) {
            int worker = w;
            fs.add(pool.submit(() -> {
                for (int i = 0; i < requests / conc; i++) {
                    // Half the workers start with the proxy, half with the engine: neither path always goes first.
                    boolean proxyFirst = (i + worker) % 2 == 1;
                    Run x = one(proxyFirst ? proxy : direct, maxTokens, stamped);
                    Run y = one(proxyFirst ? direct : proxy, maxTokens, stamped);
                    Run d = proxyFirst ? y : x;
                    Run p = proxyFirst ? x : y;
                    dT.add(d.ttft);
                    dE.add(d.e2e);
                    pT.add(p.ttft);
                    pE.add(p.e2e);
                    dC.addAll(d.chunkMicros);
                    pC.addAll(p.chunkMicros);
                    synchronized (tokens) {
                        tokens[0] += p.chunks;
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        long[] us1 = userSystemTicks(pid);
        long cpu1 = us1[0] + us1[1];
        long jit1 = compilerTicks(pid);
        double wallS = (System.nanoTime() - w0) / 1e9;
        pool.shutdown();
        if (engine != null) {
            engine.stop(0);
        }
        double cpuMs = (cpu1 - cpu0) * 10.0; // USER_HZ 100
        System.out.printf("%s: concurrency %d, %d requests each way, %d tokens each, %.1f s%n", label, conc, dT.size(),
                maxTokens, wallS);
        System.out.printf("  TTFT ms   direct p50 %.3f p99 %.3f | proxy p50 %.3f p99 %.3f | added p50 %+.3f p99 %+.3f%n",
                pct(dT, .5), pct(dT, .99), pct(pT, .5), pct(pT, .99), pct(pT, .5) - pct(dT, .5), pct(pT, .99) - pct(dT, .99));
        System.out.printf("  e2e ms    direct p50 %.3f p99 %.3f | proxy p50 %.3f p99 %.3f | added p50 %+.3f%n",
                pct(dE, .5), pct(dE, .99), pct(pE, .5), pct(pE, .99), pct(pE, .5) - pct(dE, .5));
        if (stamped) {
            System.out.printf("  chunk us  engine write to client read: direct p50 %.1f p99 %.1f | proxy p50 %.1f p99 %.1f"
                            + " | added p50 %+.1f p99 %+.1f (%d chunks each way)%n",
                    pct(dC, .5), pct(dC, .99), pct(pC, .5), pct(pC, .99), pct(pC, .5) - pct(dC, .5),
                    pct(pC, .99) - pct(dC, .99), pC.size());
        }
        System.out.printf("  agent CPU %.0f ms (user %d, system %d) over %.1f s for %d tokens forwarded: %.1f ms per 1,000 tokens%n",
                cpuMs, (us1[0] - us0[0]) * 10, (us1[1] - us0[1]) * 10, wallS, tokens[0], cpuMs * 1000 / Math.max(1, tokens[0]));
        if (jit1 > jit0) {
            double jitMs = (jit1 - jit0) * 10.0;
            System.out.printf("  of which the JIT compiler threads %.0f ms; without them %.1f ms per 1,000 tokens%n", jitMs,
                    (cpuMs - jitMs) * 1000 / Math.max(1, tokens[0]));
        }
    }

    /** One route's figures (direct, or through one proxy) over a race: times to first token and to the end, chunk times, tokens forwarded. */
    record Route(String label, int port, String pid, List<Double> ttft, List<Double> e2e, List<Double> chunk, long[] tokens,
                 List<Double> requestLeg, List<Double> firstLeg) {
        Route(String label, int port, String pid) {
            this(label, port, pid, Collections.synchronizedList(new ArrayList<>()), Collections.synchronizedList(new ArrayList<>()),
                    Collections.synchronizedList(new ArrayList<>()), new long[1], Collections.synchronizedList(new ArrayList<>()),
                    Collections.synchronizedList(new ArrayList<>()));
        }

        void add(Run r) {
            ttft.add(r.ttft);
            if (!Double.isNaN(r.requestLeg)) {
                requestLeg.add(r.requestLeg);
                firstLeg.add(r.firstLeg);
            }
            e2e.add(r.e2e);
            chunk.addAll(r.chunkMicros);
            synchronized (tokens) {
                tokens[0] += r.chunks;
            }
        }
    }

    /** REQUESTS requests each way over WORKERS workers, each worker's request going to every path in turn (the order rotating). */
    static void rounds(ExecutorService pool, int workers, List<Route> paths, int requests, int maxTokens) throws Exception {
        int n = paths.size();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            fs.add(pool.submit(() -> {
                for (int i = 0; i < Math.max(1, requests / workers); i++) {
                    for (int k = 0; k < n; k++) { // every path once, starting at a different one each time
                        Route p = paths.get((i + worker + k) % n);
                        p.add(one(p.port, maxTokens, true));
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
    }

    /** race CONCURRENCY REQUESTS MAX_TOKENS STAMP_PORT (LABEL PORT PID)... (see the class comment). */
    static void race(String[] a) throws Exception {
        int conc = Integer.parseInt(a[1]);
        int requests = Integer.parseInt(a[2]);
        int maxTokens = Integer.parseInt(a[3]);
        int stampPort = Integer.parseInt(a[4]);
        List<Route> paths = new ArrayList<>();
        paths.add(new Route("direct", stampPort, null));
        for (int i = 5; i + 2 < a.length; i += 3) {
            paths.add(new Route(a[i], Integer.parseInt(a[i + 1]), a[i + 2]));
        }
        HttpServer engine = stampEngine(stampPort);
        for (int i = 0; i < 20; i++) { // warm-up of every path
            for (Route p : paths) {
                one(p.port, maxTokens, true);
            }
        }
        int workers = conc == 1 ? 1 : Math.max(1, conc * paths.size() / 2);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        int n = paths.size();
        // This JVM (the clients and the engine) compiles its own hot code over its first thousands of requests, and
        // on two cores its compiler threads take CPU from whichever path is then waiting for it: the same rounds run
        // first unrecorded (RACE_WARM requests each way), so the measured ones see a client that has settled.
        String self = String.valueOf(ProcessHandle.current().pid());
        List<Route> unrecorded = new ArrayList<>();
        for (Route p : paths) {
            unrecorded.add(new Route(p.label, p.port, p.pid));
        }
        rounds(pool, workers, unrecorded, Integer.parseInt(System.getenv().getOrDefault("RACE_WARM", "600")), maxTokens);
        long selfJit0 = compilerTicks(self);
        long[][] cpu0 = new long[n][];
        long[] jit0 = new long[n];
        for (int k = 1; k < n; k++) {
            cpu0[k] = userSystemTicks(paths.get(k).pid);
            jit0[k] = compilerTicks(paths.get(k).pid);
        }
        long w0 = System.nanoTime();
        rounds(pool, workers, paths, requests, maxTokens);
        double wallS = (System.nanoTime() - w0) / 1e9;
        System.out.printf("the clients' and engine's own JIT compiler threads during the race: %d ms%n",
                (compilerTicks(self) - selfJit0) * 10);
        double[] cpuPer1k = new double[n];
        for (int k = 1; k < n; k++) {
            long[] us1 = userSystemTicks(paths.get(k).pid);
            long jitMs = (compilerTicks(paths.get(k).pid) - jit0[k]) * 10;
            cpuPer1k[k] = ((us1[0] + us1[1]) - (cpu0[k][0] + cpu0[k][1])) * 10.0 * 1000 / Math.max(1, paths.get(k).tokens[0]);
            Route d = paths.get(0);
            Route p = paths.get(k);
            System.out.printf("%s: concurrency %d (%d workers, every path in turn), %d requests each way, %d tokens each, %.1f s%n",
                    p.label, conc, workers, p.ttft.size(), maxTokens, wallS);
            System.out.printf("  TTFT ms   direct p50 %.3f p99 %.3f | proxy p50 %.3f p99 %.3f | added p50 %+.3f p99 %+.3f%n",
                    pct(d.ttft, .5), pct(d.ttft, .99), pct(p.ttft, .5), pct(p.ttft, .99), pct(p.ttft, .5) - pct(d.ttft, .5),
                    pct(p.ttft, .99) - pct(d.ttft, .99));
            System.out.printf("  TTFT's two legs, added p50: the request's way to the engine %+.3f ms, the first chunk's way back"
                            + " %+.3f ms (direct %.3f and %.3f)%n",
                    pct(p.requestLeg, .5) - pct(d.requestLeg, .5), pct(p.firstLeg, .5) - pct(d.firstLeg, .5),
                    pct(d.requestLeg, .5), pct(d.firstLeg, .5));
            System.out.printf("  e2e ms    direct p50 %.3f p99 %.3f | proxy p50 %.3f p99 %.3f | added p50 %+.3f%n",
                    pct(d.e2e, .5), pct(d.e2e, .99), pct(p.e2e, .5), pct(p.e2e, .99), pct(p.e2e, .5) - pct(d.e2e, .5));
            System.out.printf("  chunk us  engine write to client read: direct p50 %.1f p99 %.1f | proxy p50 %.1f p99 %.1f"
                            + " | added p50 %+.1f p99 %+.1f (%d chunks each way)%n",
                    pct(d.chunk, .5), pct(d.chunk, .99), pct(p.chunk, .5), pct(p.chunk, .99), pct(p.chunk, .5) - pct(d.chunk, .5),
                    pct(p.chunk, .99) - pct(d.chunk, .99), p.chunk.size());
            System.out.printf("  CPU %.0f ms (user %d, system %d) for %d tokens forwarded: %.1f ms per 1,000 tokens%n",
                    ((us1[0] + us1[1]) - (cpu0[k][0] + cpu0[k][1])) * 10.0, (us1[0] - cpu0[k][0]) * 10, (us1[1] - cpu0[k][1]) * 10,
                    p.tokens[0], cpuPer1k[k]);
            if (jitMs > 0) {
                System.out.printf("  of which the JIT compiler threads %d ms; without them %.1f ms per 1,000 tokens%n", jitMs,
                        cpuPer1k[k] - jitMs * 1000.0 / Math.max(1, p.tokens[0]));
            }
        }
        pool.shutdown();
        engine.stop(0);
        Route d = paths.get(0);
        Route base = paths.get(1);
        double baseTtft = pct(base.ttft, .5) - pct(d.ttft, .5);
        double baseChunk = pct(base.chunk, .5) - pct(d.chunk, .5);
        for (int k = 2; k < n; k++) {
            Route p = paths.get(k);
            System.out.printf("%s against %s, concurrency %d: added TTFT p50 %.2fx (%+.3f against %+.3f ms), TTFT p99 %+.2f ms over"
                            + " direct, added per chunk p50 %.2fx (%+.1f against %+.1f us), CPU per 1,000 tokens %.2fx (%.1f against %.1f ms)%n",
                    p.label, base.label, conc, (pct(p.ttft, .5) - pct(d.ttft, .5)) / baseTtft, pct(p.ttft, .5) - pct(d.ttft, .5),
                    baseTtft, pct(p.ttft, .99) - pct(d.ttft, .99), (pct(p.chunk, .5) - pct(d.chunk, .5)) / baseChunk,
                    pct(p.chunk, .5) - pct(d.chunk, .5), baseChunk, cpuPer1k[k] / cpuPer1k[1], cpuPer1k[k], cpuPer1k[1]);
        }
    }

    /** STREAMS streams at once through the proxy; the agent's memory while every one of them is open. */
    static void hold(int proxy, String pid, int streams, int maxTokens) throws Exception {
        long rss0 = rssKib(pid);
        String heap0 = heap(pid);
        CountDownLatch started = new CountDownLatch(streams);
        CountDownLatch measured = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(streams);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            fs.add(pool.submit(() -> {
                HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy
                        + "/v1/chat/completions")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body(maxTokens))).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                int bytes = 0;
                try (InputStream in = r.body()) {
                    byte[] buf = new byte[8192];
                    int n = in.read(buf);
                    started.countDown();
                    while (n > 0) {
                        bytes += n;
                        n = in.read(buf);
                    }
                }
                return bytes;
            }));
        }
        started.await();
        long rss1 = rssKib(pid);
        String heap1 = heap(pid);
        measured.countDown();
        long total = 0;
        for (Future<Integer> f : fs) {
            total += f.get();
        }
        pool.shutdown();
        System.out.printf("hold: %d streams open at once (%d bytes in all)%n", streams, total);
        System.out.printf("  agent RSS idle %d KiB, with the streams open %d KiB: %+d KiB, %.1f KiB per stream%n", rss0, rss1,
                rss1 - rss0, (rss1 - rss0) / (double) streams);
        System.out.printf("  heap idle: %s%n  heap open: %s%n", heap0, heap1);
    }

    /** A byte relay from listen to target on loopback, a blocking copy per direction; runs until killed. */
    static void relay(int listen, int target) throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(listen, 128, java.net.InetAddress.getLoopbackAddress())) {
            System.out.println("relay " + ProcessHandle.current().pid() + " on " + listen + " to " + target);
            while (true) {
                java.net.Socket in = server.accept();
                java.net.Socket out = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), target);
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                copy(in, out);
                copy(out, in);
            }
        }
    }

    static void copy(java.net.Socket from, java.net.Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    out.write(buf, 0, n);
                }
            } catch (java.io.IOException e) {
                // the other side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (java.io.IOException ignored) {
                    // closing anyway
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }
}
