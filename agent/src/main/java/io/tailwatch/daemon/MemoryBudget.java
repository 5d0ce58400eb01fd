package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.StreamTap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The worst case the configuration lets outside bytes claim of the heap, against the heap the agent has:
 * each proxy's {@code max_connections} streams at once, each holding its tap's line and event and the two
 * buffers of its connection; the webhook's queue full of notifications; and the agent itself at the largest
 * engine and scenario counts the config accepts (its probe windows, decoders, lane windows and the hub's
 * exposition bound, which LargestConfigIT runs in the shipped heap). {@code config check} and {@code run}
 * refuse a config whose worst case does not fit, naming the keys that take the most.
 */
public final class MemoryBudget {
    /**
     * The agent's own worst case: its live set with the defaults (7.6 MiB, measured after a full collection)
     * and the hub filled to its bounds by engine-controlled labels, rendered in both formats (about 9.5 MiB:
     * ExpositionHeapTest fits 13 MiB of ballast beside it in 24 MiB). The largest accepted engine and scenario
     * counts stay within it (14 to 16 MiB live at 32 engines, LargestConfigIT's configuration).
     */
    static final long AGENT_BYTES = 17L << 20;
    /** One proxied stream: the tap's line and the event it joins, and the connection's two 16 KiB buffers. */
    static final long STREAM_BYTES = 2L * StreamTap.MAX_LINE_BYTES + 2L * 16 * 1024;
    /** One queued webhook notification (about 0.9 KB measured; its labels and annotations are bounded). */
    static final long NOTIFICATION_BYTES = 2L * 1024;

    private MemoryBudget() {
    }

    /** One key's share of the worst case. */
    public record Part(String key, long bytes) {
    }

    /** The shares of the keys that scale with the configuration, largest first. */
    public static List<Part> parts(Config c) {
        List<Part> out = new ArrayList<>();
        List<EngineConfig> engines = c.engines();
        for (int i = 0; i < engines.size(); i++) {
            EngineConfig e = engines.get(i);
            if (e.proxy() != null) {
                out.add(new Part("engines[" + i + "].proxy.max_connections (" + e.proxy().maxConnections() + ")",
                        e.proxy().maxConnections() * STREAM_BYTES));
            }
        }
        if (c.alerts() != null && c.alerts().webhook() != null && c.alerts().webhook().url() != null) {
            int q = c.alerts().webhook().queueSize();
            out.add(new Part("alerts.webhook.queue_size (" + q + ")", q * NOTIFICATION_BYTES));
        }
        out.sort((a, b) -> Long.compare(b.bytes(), a.bytes()));
        return out;
    }

    /** The worst case in bytes. */
    public static long worstCase(Config c) {
        long sum = AGENT_BYTES;
        for (Part p : parts(c)) {
            sum += p.bytes();
        }
        return sum;
    }

    /** Null when the worst case fits {@code heapBytes}; else why not, naming the keys. */
    public static String refusal(Config c, long heapBytes) {
        long worst = worstCase(c);
        if (worst <= heapBytes) {
            return null;
        }
        StringBuilder keys = new StringBuilder();
        for (Part p : parts(c)) {
            keys.append(keys.length() == 0 ? "" : ", ").append(p.key()).append(" ").append(mib(p.bytes()));
        }
        return "the worst case this config allows (" + mib(worst) + ": the agent " + mib(AGENT_BYTES)
                + (keys.length() == 0 ? "" : ", " + keys) + ") does not fit the " + mib(heapBytes)
                + " heap; lower " + (keys.length() == 0 ? "the engines" : "these keys") + " or give the JVM more (-Xmx)";
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /**
     * The heap {@code run} gets for {@code c} from the bundle launcher: the {@code -Xmx} of launchd/jvm.options
     * in the bundle the launcher names ({@code -Dtailwatch.home}) or beside the jar's lib directory, and of launchd/jvm-proxy.options after it when {@code c} gives an engine a
     * proxy (the launcher adds that file then); this JVM's own where there is no bundle. So {@code config check},
     * a runbook JVM, checks against the daemon's heap.
     */
    public static long heap(Config c) {
        Long shipped = launcherXmx(proxied(c));
        return shipped == null ? Runtime.getRuntime().maxMemory() : shipped;
    }

    /** The heap a running daemon has for {@code c}: the launcher's for it, and never more than this JVM's own. */
    public static long runningHeap(Config c) {
        return Math.min(Runtime.getRuntime().maxMemory(), heap(c));
    }

    static boolean proxied(Config c) {
        return c.engines().stream().anyMatch(e -> e.proxy() != null);
    }

    static Long launcherXmx(boolean proxied) {
        try {
            // The launcher names its bundle (the jar may be a link to elsewhere); else the jar's own bundle.
            String home = System.getProperty("tailwatch.home");
            Path jar = Path.of(MemoryBudget.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path launchd = home != null && !home.isEmpty() ? Path.of(home).resolve("launchd")
                    : jar.getParent() == null || jar.getParent().getParent() == null ? null
                    : jar.getParent().getParent().resolve("launchd");
            if (launchd == null || !Files.isRegularFile(launchd.resolve("jvm.options"))) {
                return null;
            }
            Long xmx = xmx(launchd.resolve("jvm.options"), null);
            return proxied ? xmx(launchd.resolve("jvm-proxy.options"), xmx) : xmx;
        } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    /** The last -Xmx of an options file, or {@code before} where it has none or is absent. */
    private static Long xmx(Path options, Long before) throws IOException {
        if (!Files.isRegularFile(options)) {
            return before;
        }
        Long xmx = before;
        for (String line : Files.readAllLines(options)) {
            String l = line.strip();
            if (l.startsWith("-Xmx")) {
                xmx = size(l.substring(4));
            }
        }
        return xmx;
    }

    static Long size(String v) {
        String s = v.toLowerCase(Locale.ROOT);
        long mult = switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        String digits = mult == 1 ? s : s.substring(0, s.length() - 1);
        return digits.chars().allMatch(Character::isDigit) && !digits.isEmpty() ? Long.parseLong(digits) * mult : null;
    }
}
