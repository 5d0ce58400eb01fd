package io.tailwatch.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay to a target port that keeps every byte of each connection, both ways (at most
 * {@link #MAX_BYTES} a direction): what a proxy in front of it sent and what the target answered, to be
 * compared with what the proxy's own client sent and got. {@link #bodies} takes the HTTP/1.1 message bodies
 * out of one direction's bytes (Content-Length, chunked, or to the end).
 */
public final class TcpTap implements AutoCloseable {
    public static final int MAX_BYTES = 8 * 1024 * 1024;

    /** One connection: what went to the target and what came back, so far. */
    public static final class Conversation {
        private final ByteArrayOutputStream toTarget = new ByteArrayOutputStream();
        private final ByteArrayOutputStream fromTarget = new ByteArrayOutputStream();

        public synchronized byte[] toTarget() {
            return toTarget.toByteArray();
        }

        public synchronized byte[] fromTarget() {
            return fromTarget.toByteArray();
        }

        synchronized void keep(boolean up, byte[] b, int n) {
            ByteArrayOutputStream o = up ? toTarget : fromTarget;
            if (o.size() + n > MAX_BYTES) {
                throw new IllegalStateException("more than " + MAX_BYTES + " bytes on one connection");
            }
            o.write(b, 0, n);
        }
    }

    private final ServerSocket server;
    private final int target;
    private final List<Conversation> conversations = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private TcpTap(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-tap-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static TcpTap start(int targetPort) throws IOException {
        return new TcpTap(targetPort);
    }

    public int port() {
        return server.getLocalPort();
    }

    public List<Conversation> conversations() {
        return List.copyOf(conversations);
    }

    /** The connection whose bytes to the target contain {@code marker} (a header value), or null. */
    public Conversation carrying(String marker) {
        for (Conversation c : conversations) {
            if (new String(c.toTarget(), StandardCharsets.ISO_8859_1).contains(marker)) {
                return c;
            }
        }
        return null;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return;
            }
            try {
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                sockets.add(in);
                sockets.add(out);
                Conversation c = new Conversation();
                conversations.add(c);
                copy(in, out, c, true);
                copy(out, in, c, false);
            } catch (IOException e) {
                // the target refused this one: its client sees a close
                closeQuietly(in);
            }
        }
    }

    private static void copy(Socket from, Socket to, Conversation c, boolean up) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buf)) > 0; ) {
                    c.keep(up, buf, n);
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | IllegalStateException e) {
                // one side closed (or the bound was passed): close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-tap-copy");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** One HTTP/1.1 message of a direction: its head (start line and headers, as sent) and its body. */
    public record Message(String head, byte[] body) {
    }

    /** The bodies of {@link #messages}. */
    public static List<byte[]> bodies(byte[] bytes, boolean requests) {
        return messages(bytes, requests).stream().map(Message::body).toList();
    }

    /**
     * The HTTP/1.1 messages in one direction's bytes, in order: each message's head up to its
     * blank line, then a Content-Length body, a chunked one (chunks joined, trailers dropped) or, with
     * neither, the rest of the bytes (a response read to the close). A request without a length has an
     * empty body. Answers that have no body whatever their headers say (to HEAD, 1xx, 204, 304) are not told
     * apart: this is for GET and POST exchanges.
     */
    public static List<Message> messages(byte[] bytes, boolean requests) {
        List<Message> out = new ArrayList<>();
        int at = 0;
        while (at < bytes.length) {
            int end = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), at);
            if (end < 0) {
                throw new IllegalArgumentException("a message head without its end at byte " + at);
            }
            String raw = new String(bytes, at, end - at, StandardCharsets.ISO_8859_1);
            String head = raw.toLowerCase(Locale.ROOT);
            at = end + 4;
            long length = -1;
            boolean chunked = false;
            for (String line : head.split("\r\n")) {
                if (line.startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(15).trim());
                } else if (line.startsWith("transfer-encoding:") && line.contains("chunked")) {
                    chunked = true;
                }
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (chunked) {
                while (true) {
                    int eol = indexOf(bytes, "\r\n".getBytes(StandardCharsets.US_ASCII), at);
                    if (eol < 0) {
                        throw new IllegalArgumentException("a chunk size without its line end at byte " + at);
                    }
                    String size = new String(bytes, at, eol - at, StandardCharsets.US_ASCII);
                    int semi = size.indexOf(';');
                    int n = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
                    at = eol + 2;
                    if (n == 0) {
                        // trailers, if any, up to the blank line
                        int blank = indexOf(bytes, "\r\n".getBytes(StandardCharsets.US_ASCII), at);
                        while (blank != at) {
                            if (blank < 0) {
                                throw new IllegalArgumentException("trailers without their end at byte " + at);
                            }
                            at = blank + 2;
                            blank = indexOf(bytes, "\r\n".getBytes(StandardCharsets.US_ASCII), at);
                        }
                        at += 2;
                        break;
                    }
                    body.write(bytes, at, n);
                    at += n + 2;
                }
            } else if (length >= 0) {
                if (at + length > bytes.length) {
                    throw new IllegalArgumentException("a body of " + length + " bytes with " + (bytes.length - at) + " kept");
                }
                body.write(bytes, at, (int) length);
                at += (int) length;
            } else if (!requests) {
                body.write(bytes, at, bytes.length - at);
                at = bytes.length;
            }
            out.add(new Message(raw, body.toByteArray()));
        }
        return out;
    }

    private static int indexOf(byte[] b, byte[] what, int from) {
        outer:
        for (int i = from; i <= b.length - what.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (b[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
