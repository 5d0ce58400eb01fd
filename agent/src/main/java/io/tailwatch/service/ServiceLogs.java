package io.tailwatch.service;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.stream.Stream;

/** Shows the agent's launchd logs: the last lines of each, and optionally follows them. */
public final class ServiceLogs {
    static final long POLL_MILLIS = 500;

    private final List<Path> files;
    private final PrintWriter out;

    public ServiceLogs(List<Path> files, PrintWriter out) {
        this.files = List.copyOf(files);
        this.out = out;
    }

    /** Prints the last {@code lines} lines of every log; false when none exists yet. */
    public boolean tail(int lines) throws IOException {
        boolean any = false;
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                out.println("==> " + f + " (no log yet) <==");
                continue;
            }
            any = true;
            out.println("==> " + f + " <==");
            Deque<String> last = new ArrayDeque<>();
            try (Stream<String> s = Files.lines(f, StandardCharsets.UTF_8)) {
                s.forEach(l -> {
                    last.addLast(l);
                    if (last.size() > lines) {
                        last.removeFirst();
                    }
                });
            }
            last.forEach(out::println);
        }
        out.flush();
        return any;
    }

    /** Prints what is appended to the logs until the thread is interrupted (or the process ends). */
    public void follow() throws IOException {
        long[] offsets = new long[files.size()];
        for (int i = 0; i < files.size(); i++) {
            offsets[i] = Files.isRegularFile(files.get(i)) ? Files.size(files.get(i)) : 0;
        }
        while (!Thread.currentThread().isInterrupted()) {
            for (int i = 0; i < files.size(); i++) {
                Path f = files.get(i);
                if (!Files.isRegularFile(f)) {
                    continue;
                }
                long size = Files.size(f);
                if (size < offsets[i]) {
                    offsets[i] = 0; // truncated or rotated
                }
                if (size > offsets[i]) {
                    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "r")) {
                        raf.seek(offsets[i]);
                        byte[] b = new byte[(int) Math.min(size - offsets[i], 1 << 20)];
                        raf.readFully(b);
                        offsets[i] += b.length;
                        out.print(new String(b, StandardCharsets.UTF_8));
                        out.flush();
                    }
                }
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
