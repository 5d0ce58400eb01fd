package io.tailwatch.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile neighbour on a loopback port: every request, whatever its path, is answered with
 * {@code bytes} of a JSON inventory that looks like an engine's (a version, a status, a slot count,
 * then model entries with 1,000-character ids that go on to the end), written as it goes so this
 * side never holds it. The status line is settable (200 by default).
 */
public final class FloodServer implements AutoCloseable {
    private final ServerSocket server;
    private final ExecutorService pool;
    private final long bytes;
    private final AtomicLong answered = new AtomicLong();
    private volatile int status = 200;

    public FloodServer(long bytes) throws IOException {
        this.bytes = bytes;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "flood-server");
            t.setDaemon(true);
            return t;
        });
        pool.submit(() -> {
            while (!server.isClosed()) {
                Socket s = server.accept();
                pool.submit(() -> answer(s));
            }
            return null;
        });
    }

    public int port() {
        return server.getLocalPort();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + port());
    }

    public void status(int status) {
        this.status = status;
    }

    /** Requests answered so far (each with the whole flood, or until the reader hung up). */
    public long answered() {
        return answered.get();
    }

    private void answer(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            int state = 0;
            while (state < 4) {
                int c = in.read();
                if (c < 0) {
                    return;
                }
                state = c == '\r' || c == '\n' ? state + 1 : 0;
            }
            answered.incrementAndGet();
            out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + bytes
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] head = "{\"version\":\"1\",\"status\":\"ok\",\"total_slots\":1,\"data\":[".getBytes(StandardCharsets.US_ASCII);
            byte[] entry = ("{\"id\":\"" + "m".repeat(1000) + "\",\"owned_by\":\"vllm\",\"state\":\"loaded\"},")
                    .getBytes(StandardCharsets.US_ASCII);
            out.write(head);
            long sent = head.length;
            while (sent + entry.length <= bytes) {
                out.write(entry);
                sent += entry.length;
            }
            byte[] pad = new byte[(int) (bytes - sent)];
            java.util.Arrays.fill(pad, (byte) ' ');
            out.write(pad);
        } catch (IOException e) {
            // the reader stopped at its bound and closed the connection: what this server is for
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        pool.shutdownNow();
    }
}
