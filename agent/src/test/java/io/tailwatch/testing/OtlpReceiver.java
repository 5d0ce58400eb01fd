package io.tailwatch.testing;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/** A loopback OTLP/HTTP metrics receiver that decodes requests with the official proto classes. */
public final class OtlpReceiver implements AutoCloseable {
    private final HttpServer server;
    private final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicInteger rejected = new AtomicInteger();
    private final Map<String, String> lastHeaders = new ConcurrentHashMap<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/v1/metrics", ex -> {
            ex.getRequestHeaders().forEach((k, v) -> lastHeaders.put(k.toLowerCase(), String.join(",", v)));
            InputStream in = ex.getRequestBody();
            if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
                in = new GZIPInputStream(in);
            }
            byte[] body = in.readAllBytes();
            int code = status.get();
            if (code == 200) {
                ExportMetricsServiceRequest r = ExportMetricsServiceRequest.parseFrom(body);
                requests.add(r);
                java.util.function.Consumer<ExportMetricsServiceRequest> l = listener;
                if (l != null) {
                    l.accept(r);
                }
            } else {
                rejected.incrementAndGet();
            }
            ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            ex.sendResponseHeaders(code, -1);
            ex.close();
        });
        server.start();
    }

    private volatile java.util.function.Consumer<ExportMetricsServiceRequest> listener;

    /** Hands every accepted request to {@code l} as it arrives, in order, before the answer goes out. */
    public void onRequest(java.util.function.Consumer<ExportMetricsServiceRequest> l) {
        listener = l;
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answer every request with this HTTP status from now on. */
    public void answer(int code) {
        status.set(code);
    }

    public int received() {
        return requests.size();
    }

    /** Every decoded request, oldest first. */
    public List<ExportMetricsServiceRequest> requests() {
        return List.copyOf(requests);
    }

    public int rejected() {
        return rejected.get();
    }

    public Map<String, String> lastHeaders() {
        return lastHeaders;
    }

    public Set<String> metricNames() {
        Set<String> names = ConcurrentHashMap.newKeySet();
        for (ExportMetricsServiceRequest r : requests) {
            for (ResourceMetrics rm : r.getResourceMetricsList()) {
                for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                    for (Metric m : sm.getMetricsList()) {
                        names.add(m.getName());
                    }
                }
            }
        }
        return names;
    }

    public Map<String, String> lastResource() {
        Map<String, String> out = new ConcurrentHashMap<>();
        if (requests.isEmpty()) {
            return out;
        }
        ExportMetricsServiceRequest r = requests.get(requests.size() - 1);
        for (KeyValue kv : r.getResourceMetrics(0).getResource().getAttributesList()) {
            out.put(kv.getKey(), kv.getValue().getStringValue());
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
