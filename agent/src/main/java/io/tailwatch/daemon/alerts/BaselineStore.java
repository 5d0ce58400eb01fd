package io.tailwatch.daemon.alerts;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-request (concurrency 1) baseline p95 of end-to-end latency per engine/model/scenario,
 * persisted as a small JSON file so it survives restarts. It is set by the concurrency ladder
 * (level 1) through {@link #put}, or learned from the first window of the agent's own probes that
 * holds enough samples (they are sent one at a time). Writes go to a temp file then move into place.
 */
public final class BaselineStore {
    private static final Logger LOG = LoggerFactory.getLogger(BaselineStore.class);
    /** Bound on stored baselines (engines x models x scenarios). */
    public static final int MAX_ENTRIES = 1000;
    public static final String SOURCE_IDLE = "idle_probes";
    public static final String SOURCE_LADDER = "ladder";

    private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(io.tailwatch.core.json.Json.timeModule())
            .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);

    /** One stored baseline. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Entry(String engine, String model, String scenario, double p95Seconds, String source,
                        Instant measuredAt) {
    }

    private final Path file;
    private final Map<String, Entry> entries = new TreeMap<>();
    /** Modification time of the file as last read or written; another process (the ladder command) may rewrite it. */
    private java.nio.file.attribute.FileTime seen;

    private BaselineStore(Path file) {
        this.file = file;
    }

    /** Opens the store; a missing file is empty, an unreadable one is logged and treated as empty. */
    public static BaselineStore open(Path file) {
        BaselineStore s = new BaselineStore(file);
        s.load();
        return s;
    }

    private synchronized void load() {
        if (file == null || !Files.exists(file)) {
            return;
        }
        try {
            seen = Files.getLastModifiedTime(file);
            List<Entry> list = MAPPER.readValue(file.toFile(), new TypeReference<Map<String, List<Entry>>>() {
            }).getOrDefault("baselines", List.of());
            entries.clear();
            for (Entry e : list) {
                if (e.engine() != null && e.model() != null && e.scenario() != null && e.p95Seconds() > 0
                        && entries.size() < MAX_ENTRIES) {
                    entries.put(key(e.engine(), e.model(), e.scenario()), e);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("baseline file {} is unreadable ({}); keeping the baselines in memory", file, e.getMessage());
        }
    }

    /** Re-reads the file when another process (e.g. the concurrency ladder command) has rewritten it. */
    public synchronized void refreshIfChanged() {
        if (file == null) {
            return;
        }
        try {
            if (Files.exists(file) && !Files.getLastModifiedTime(file).equals(seen)) {
                load();
            }
        } catch (IOException e) {
            LOG.debug("cannot stat baseline file {}: {}", file, e.toString());
        }
    }

    public Path file() {
        return file;
    }

    private static String key(String engine, String model, String scenario) {
        return engine + "\u0000" + model + "\u0000" + scenario;
    }

    public synchronized Entry get(String engine, String model, String scenario) {
        return entries.get(key(engine, model, scenario));
    }

    public synchronized List<Entry> all() {
        return List.copyOf(entries.values());
    }

    /**
     * Sets a baseline measured by the ladder at concurrency 1 (replacing any earlier one). A running
     * agent picks up a file rewritten by another process on its next cycle.
     */
    public void put(String engine, String model, String scenario, double p95Seconds) {
        put(engine, model, scenario, p95Seconds, SOURCE_LADDER, Instant.now());
    }

    public synchronized void put(String engine, String model, String scenario, double p95Seconds, String source,
                                 Instant at) {
        refreshIfChanged();
        if (!(p95Seconds > 0) || Double.isInfinite(p95Seconds)) {
            throw new IllegalArgumentException("baseline p95 must be a positive number of seconds, got " + p95Seconds);
        }
        String k = key(engine, model, scenario);
        if (!entries.containsKey(k) && entries.size() >= MAX_ENTRIES) {
            LOG.warn("baseline store is full ({} entries); {} / {} / {} not stored", MAX_ENTRIES, engine, model, scenario);
            return;
        }
        entries.put(k, new Entry(engine, model, scenario, p95Seconds, source, at));
        save();
    }

    /** Takes the p95 of every window with enough samples and no baseline yet as its baseline. */
    public void learnFromWindows(MetricSnapshot s, int minSamples, Instant now) {
        refreshIfChanged();
        for (Point p : s.of(ProbeMetrics.WINDOW_SAMPLES)) {
            if (p.value() < minSamples) {
                continue;
            }
            String e = p.attributes().get(AttrKeys.ENGINE);
            String m = p.attributes().get(AttrKeys.MODEL);
            String sc = p.attributes().get(AttrKeys.SCENARIO);
            if (get(e, m, sc) != null) {
                continue;
            }
            Double p95 = s.value(ProbeMetrics.WINDOW_E2E, Percentile.P95, AttrKeys.ENGINE, e, AttrKeys.MODEL, m, AttrKeys.SCENARIO, sc);
            if (p95 != null && p95 > 0) {
                put(e, m, sc, p95, SOURCE_IDLE, now);
                LOG.info("event=baseline_learned engine={} model={} scenario={} p95_seconds={}", e, m, sc, p95);
            }
        }
    }

    /** The baselines as tailwatch.baseline.e2e.p95 points. */
    public synchronized List<Point> points() {
        return points(null);
    }

    /**
     * The baselines of the engines in {@code watched} (null: all) as points. The file is shared by every
     * agent and ladder run on the host; a daemon exports only its own engines' baselines, never another
     * run's (an ad-hoc {@code host:port} engine, say).
     */
    public synchronized List<Point> points(java.util.Collection<String> watched) {
        List<Point> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (watched != null && !watched.contains(e.engine())) {
                continue;
            }
            out.add(Point.of(AlertMetrics.BASELINE_E2E_P95, e.p95Seconds(), AttrKeys.ENGINE, e.engine(), AttrKeys.MODEL, e.model(),
                    AttrKeys.SCENARIO, e.scenario()));
        }
        return out;
    }

    private void save() {
        if (file == null) {
            return;
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, ".baselines", ".tmp");
            try {
                MAPPER.writeValue(tmp.toFile(), Map.of("baselines", new ArrayList<>(entries.values())));
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
                seen = Files.getLastModifiedTime(file);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            LOG.warn("cannot write baseline file {}: {}", file, e.toString());
        }
    }
}
