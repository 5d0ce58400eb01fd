package io.tailwatch.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/** A copy of a fixture procfs/sysfs tree in a temp dir, which a test may rewrite while the agent reads it. */
public final class HostFixture {
    private final Path root;

    private HostFixture(Path root) {
        this.root = root;
    }

    /** Copies src/test/resources/fixtures/NAME into {@code dir}. */
    public static HostFixture copy(String name, Path dir) throws IOException {
        Path src = AgentProcess.root().resolve("agent/src/test/resources/fixtures").resolve(name);
        try (Stream<Path> files = Files.walk(src)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = dir.resolve(src.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return new HostFixture(dir);
    }

    public Path procfs() {
        return root.resolve("proc");
    }

    public Path sysfs() {
        return root.resolve("sys");
    }

    /** Adds {@code pages} to /proc/vmstat's pswpin (pages swapped in), written atomically like {@link #setMeminfo}. */
    public void swapIn(long pages) throws IOException {
        Path f = procfs().resolve("vmstat");
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(f)) {
            if (line.startsWith("pswpin ")) {
                line = "pswpin " + (Long.parseLong(line.substring(7).strip()) + pages);
            }
            b.append(line).append('\n');
        }
        Path tmp = f.resolveSibling("vmstat.tmp");
        Files.writeString(tmp, b.toString());
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Rewrites /proc/pressure/memory with these avg10 shares (percent of time stalled), atomically. */
    public void setMemoryPressure(double someAvg10, double fullAvg10) throws IOException {
        Path f = procfs().resolve("pressure/memory");
        Path tmp = f.resolveSibling("memory.tmp");
        Files.writeString(tmp, String.format(java.util.Locale.ROOT,
                "some avg10=%.2f avg60=%.2f avg300=0.20 total=123456\nfull avg10=%.2f avg60=%.2f avg300=0.00 total=23456\n",
                someAvg10, someAvg10, fullAvg10, fullAvg10));
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Replaces a line of /proc/meminfo, writing a temp file and moving it over (readers never see half a file). */
    public void setMeminfo(String key, String value) throws IOException {
        Path f = procfs().resolve("meminfo");
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(f)) {
            b.append(line.startsWith(key + ":") ? key + ":" + " ".repeat(Math.max(1, 16 - key.length())) + value : line).append('\n');
        }
        Path tmp = f.resolveSibling("meminfo.tmp");
        Files.writeString(tmp, b.toString());
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
