package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Paging activity from {@code /proc/vmstat}: {@code pswpin} and {@code pswpout}, pages swapped in and
 * out since boot. A kernel without these lines (or without /proc/vmstat) exports nothing.
 */
public final class PagingSampler implements Sampler {
    /** /proc/vmstat has about 200 short lines; anything far larger is not vmstat. */
    static final long MAX_BYTES = 256 * 1024;
    private final Path vmstat;

    public PagingSampler(Path procfs) {
        this.vmstat = procfs.resolve("vmstat");
    }

    @Override
    public String name() {
        return "paging";
    }

    @Override
    public List<Point> sample() throws IOException {
        if (!Files.exists(vmstat)) {
            return List.of();
        }
        if (Files.size(vmstat) > MAX_BYTES) {
            throw new IOException(vmstat + ": larger than " + MAX_BYTES + " bytes");
        }
        Long in = null;
        Long out = null;
        String[] lines = ProcFiles.read(vmstat).split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith("pswpin ")) {
                in = count(line, i);
            } else if (line.startsWith("pswpout ")) {
                out = count(line, i);
            }
        }
        if (in == null || out == null) {
            return List.of();
        }
        return List.of(
                Point.of(HostMetrics.PAGING_OPERATIONS, in, PagingDirection.IN),
                Point.of(HostMetrics.PAGING_OPERATIONS, out, PagingDirection.OUT));
    }

    private long count(String line, int index) throws IOException {
        String v = line.substring(line.indexOf(' ') + 1).strip();
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException(vmstat + " line " + (index + 1) + ": not a page count in '" + ProcFiles.clip(line) + "'");
        }
    }
}
