package io.tailwatch.tools.service;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Shows the agent's launchd logs: the last lines of each, and optionally follows them. */
public final class ServiceLogs {
    static final long POLL_MILLIS = 500;

    /** tail reads at most this much of the end of each log. */
    static final int TAIL_WINDOW = 1 << 20;

    private final List<Path> files;
    private final PrintWriter out;
    /** Where follow() starts in each log: where tail() stopped reading, else 0 (a log created later). */
    private final long[] offsets;

    public ServiceLogs(List<Path> files, PrintWriter out) {
        this.files = List.copyOf(files);
        this.out = out;
        this.offsets = new long[files.size()];
    }

    /** Prints the last {@code lines} lines of every log; false when none exists yet. */
    public boolean tail(int lines) throws IOException {
        boolean any = false;
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            if (!Files.isRegularFile(f)) {
                out.println("==> " + f + " (no log yet) <==");
                continue;
            }
            any = true;
            out.println("==> " + f + " <==");
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "r")) {
                long size = raf.length();
                long from = Math.max(0, size - TAIL_WINDOW);
                byte[] b = new byte[(int) (size - from)];
                raf.seek(from);
                raf.readFully(b);
                offsets[i] = size; // follow() goes on from exactly here
                String[] all = new String(b, StandardCharsets.UTF_8).split("\n", -1);
                int n = all.length - (all[all.length - 1].isEmpty() ? 1 : 0);
                for (int k = Math.max(from > 0 ? 1 : 0, n - lines); k < n; k++) {
                    out.println(all[k]);
                }
            }
        }
        out.flush();
        return any;
    }

    /** Prints what is appended to the logs until the thread is interrupted (or the process ends). */
    public void follow() throws IOException {
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
