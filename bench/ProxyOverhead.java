import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The engine reached directly and through the agent's proxy, in one run, request by request alternately:
 * time to the first content chunk and to the end of the stream, at a given concurrency; and the agent's CPU
 * time over the proxied requests (from /proc/PID/stat), per 1,000 tokens forwarded.
 * java bench/ProxyOverhead.java DIRECT_PORT PROXY_PORT AGENT_PID CONCURRENCY REQUESTS MAX_TOKENS
 */
public class ProxyOverhead {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    record Run(double ttft, double e2e, int chunks) {
    }

    static Run one(int port, int maxTokens) throws Exception {
        String body = "{\"model\":\"mlx-community/Sim-Llama-3-8B-4bit\",\"stream\":true,\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
        long t0 = System.nanoTime();
        HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        long first = -1;
        int chunks = 0;
        StringBuilder line = new StringBuilder();
        try (InputStream in = r.body()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        if (line.indexOf("\"content\"") >= 0) {
                            chunks++;
                            if (first < 0) {
                                first = System.nanoTime();
                            }
                        }
                        line.setLength(0);
                    } else {
                        line.append((char) buf[i]);
                    }
                }
            }
        }
        return new Run((first - t0) / 1e6, (System.nanoTime() - t0) / 1e6, chunks);
    }

    static long cpuTicks(String pid) throws Exception {
        String[] f = Files.readString(Path.of("/proc/" + pid + "/stat")).split("\\) ")[1].split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    static double pct(List<Double> v, double p) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.get((int) Math.min(s.size() - 1, Math.ceil(p * s.size()) - 1));
    }

    public static void main(String[] a) throws Exception {
        int direct = Integer.parseInt(a[0]);
        int proxy = Integer.parseInt(a[1]);
        String pid = a[2];
        int conc = Integer.parseInt(a[3]);
        int requests = Integer.parseInt(a[4]);
        int maxTokens = Integer.parseInt(a[5]);
        for (int i = 0; i < 20; i++) { // warm-up of both paths
            one(direct, maxTokens);
            one(proxy, maxTokens);
        }
        ExecutorService pool = Executors.newFixedThreadPool(conc);
        List<Double> dT = Collections.synchronizedList(new ArrayList<>());
        List<Double> pT = Collections.synchronizedList(new ArrayList<>());
        List<Double> dE = Collections.synchronizedList(new ArrayList<>());
        List<Double> pE = Collections.synchronizedList(new ArrayList<>());
        long[] tokens = new long[1];
        long cpu0 = cpuTicks(pid);
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < conc; w++) {
            fs.add(pool.submit(() -> {
                for (int i = 0; i < requests / conc; i++) {
                    try {
                        Run d = one(direct, maxTokens);
                        Run p = one(proxy, maxTokens);
                        dT.add(d.ttft);
                        dE.add(d.e2e);
                        pT.add(p.ttft);
                        pE.add(p.e2e);
                        synchronized (tokens) {
                            tokens[0] += p.chunks;
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        long cpu1 = cpuTicks(pid);
        pool.shutdown();
        double cpuMs = (cpu1 - cpu0) * 10.0; // USER_HZ 100
        System.out.printf("concurrency %d, %d requests each way, %d tokens each%n", conc, dT.size(), maxTokens);
        System.out.printf("TTFT ms   direct p50 %.2f p99 %.2f | proxy p50 %.2f p99 %.2f | added p50 %.2f p99 %.2f%n",
                pct(dT, .5), pct(dT, .99), pct(pT, .5), pct(pT, .99), pct(pT, .5) - pct(dT, .5), pct(pT, .99) - pct(dT, .99));
        System.out.printf("e2e ms    direct p50 %.2f p99 %.2f | proxy p50 %.2f p99 %.2f | added p50 %.2f (per chunk after the first %.1f us)%n",
                pct(dE, .5), pct(dE, .99), pct(pE, .5), pct(pE, .99), pct(pE, .5) - pct(dE, .5),
                ((pct(pE, .5) - pct(dE, .5)) - (pct(pT, .5) - pct(dT, .5))) * 1000 / Math.max(1, maxTokens - 1));
        System.out.printf("agent CPU %.0f ms for %d tokens forwarded: %.1f ms per 1,000 tokens%n", cpuMs, tokens[0],
                cpuMs * 1000 / Math.max(1, tokens[0]));
    }
}
