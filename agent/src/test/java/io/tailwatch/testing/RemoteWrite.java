package io.tailwatch.testing;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes samples into a Prometheus started with {@code --web.enable-remote-write-receiver}, with their own
 * timestamps and values as given (a staleness marker included): what Prometheus' OTLP receiver does with a
 * translated request, so that pushed series behave in the TSDB as they do behind that receiver (no scrape, no
 * staleness unless a point says so, the 5-minute lookback otherwise).
 * Remote write 1.0: a snappy-compressed prompb.WriteRequest.
 */
public final class RemoteWrite {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI url;

    public RemoteWrite(String baseUrl) {
        this.url = URI.create(baseUrl + "/api/v1/write");
    }

    /** Writes the samples (grouped per series, in the order given); throws unless Prometheus answers 2xx. */
    public void write(List<PromTranslation.Sample> samples) throws IOException, InterruptedException {
        Map<Map<String, String>, ByteArrayOutputStream> series = new LinkedHashMap<>();
        for (PromTranslation.Sample s : samples) {
            ByteArrayOutputStream sample = new ByteArrayOutputStream();
            CodedOutputStream o = CodedOutputStream.newInstance(sample);
            o.writeDouble(1, s.value());
            o.writeInt64(2, s.timestampMillis());
            o.flush();
            ByteArrayOutputStream ts = series.computeIfAbsent(new TreeMap<>(s.labels()), RemoteWrite::labels);
            CodedOutputStream t = CodedOutputStream.newInstance(ts);
            t.writeByteArray(2, sample.toByteArray());
            t.flush();
        }
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        CodedOutputStream r = CodedOutputStream.newInstance(request);
        for (ByteArrayOutputStream ts : series.values()) {
            r.writeByteArray(1, ts.toByteArray());
        }
        r.flush();
        HttpResponse<String> resp = HTTP.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
                .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                .POST(HttpRequest.BodyPublishers.ofByteArray(snappyLiterals(request.toByteArray()))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() / 100 != 2) {
            throw new IOException("remote write answered " + resp.statusCode() + ": " + resp.body());
        }
    }

    /** A TimeSeries' labels (sorted by name, as remote write requires); its samples follow. */
    private static ByteArrayOutputStream labels(Map<String, String> sorted) {
        ByteArrayOutputStream ts = new ByteArrayOutputStream();
        try {
            CodedOutputStream t = CodedOutputStream.newInstance(ts);
            for (Map.Entry<String, String> e : sorted.entrySet()) {
                ByteArrayOutputStream label = new ByteArrayOutputStream();
                CodedOutputStream l = CodedOutputStream.newInstance(label);
                l.writeString(1, e.getKey());
                l.writeString(2, e.getValue());
                l.flush();
                t.writeByteArray(1, label.toByteArray());
            }
            t.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return ts;
    }

    /**
     * The snappy block format with literals only (valid snappy that any decoder reads; no compression, which a
     * loopback test does not need): the uncompressed length as a varint, then literal chunks of at most 64 KiB.
     */
    static byte[] snappyLiterals(byte[] in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + in.length / 1000 + 16);
        int n = in.length;
        while (n >= 0x80) {
            out.write((n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write(n);
        for (int off = 0; off < in.length; off += 65536) {
            int len = Math.min(65536, in.length - off);
            int m = len - 1;
            if (m < 60) {
                out.write(m << 2);
            } else if (m < 256) {
                out.write(60 << 2);
                out.write(m);
            } else {
                out.write(61 << 2);
                out.write(m & 0xff);
                out.write(m >>> 8);
            }
            out.write(in, off, len);
        }
        return out.toByteArray();
    }
}
