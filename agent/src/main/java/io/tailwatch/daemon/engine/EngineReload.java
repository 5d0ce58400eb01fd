package io.tailwatch.daemon.engine;

import io.tailwatch.core.config.EngineConfig;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a reload restarts when one engine's settings change, decided per key of {@link EngineConfig}.
 * The engine's watch (its reached state, probe windows, health history and so the alerts read from them)
 * restarts only when a key it is built from changes: the name (another engine), the API, URL, API key and
 * connect timeout (its client), the model (its windows are per model) and the health and scenario
 * intervals (its schedule and windows). The keys it reads live (health timeout, pressure skip, loading
 * limit) and the ones it never reads (proxy lanes, process names, launchd label, signals section) are
 * applied to the running watch. The engine-side signal reader restarts on the keys it is built from.
 * Every key of the record has a decision: a key added without one fails at class load (and in the tests).
 */
public final class EngineReload {

    /** What a change of one key restarts. */
    public record Decision(boolean watch, boolean signals) {
    }

    private static final Decision KEEP = new Decision(false, false);
    private static final Decision SIGNALS = new Decision(false, true);
    private static final Decision BOTH = new Decision(true, true);

    /** Per record component name, in the record's order. */
    public static final Map<String, Decision> DECISIONS = decisions();

    private EngineReload() {
    }

    private static Map<String, Decision> decisions() {
        Map<String, Decision> m = new LinkedHashMap<>();
        m.put("name", BOTH);
        m.put("api", BOTH);
        m.put("url", BOTH);
        m.put("model", BOTH);
        m.put("apiKey", BOTH);
        m.put("healthInterval", BOTH);
        m.put("healthTimeout", SIGNALS);
        m.put("skipWhenPressureCritical", KEEP);
        m.put("scenarios", BOTH);
        m.put("processNames", KEEP);
        m.put("launchdLabel", KEEP);
        m.put("signals", SIGNALS);
        m.put("connectTimeout", BOTH);
        m.put("proxy", KEEP);
        m.put("loadingLimit", KEEP);
        Set<String> keys = m.keySet();
        List<String> components = components().stream().map(RecordComponent::getName).toList();
        if (!keys.equals(Set.copyOf(components))) {
            throw new IllegalStateException("engine keys without a reload decision: " + components + " vs " + keys);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    private static List<RecordComponent> components() {
        return Arrays.asList(EngineConfig.class.getRecordComponents());
    }

    /** The keys (record component names) whose values differ between {@code a} and {@code b}. */
    public static List<String> changed(EngineConfig a, EngineConfig b) {
        List<String> out = new ArrayList<>();
        for (RecordComponent c : components()) {
            try {
                if (!Objects.equals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
                    out.add(c.getName());
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read engine key " + c.getName(), e);
            }
        }
        return out;
    }

    /** Whether going from {@code a} to {@code b} restarts the engine's watch. */
    public static boolean restartsWatch(EngineConfig a, EngineConfig b) {
        return changed(a, b).stream().anyMatch(k -> DECISIONS.get(k).watch());
    }

    /** Whether going from {@code a} to {@code b} restarts the engine-side signal reader. */
    public static boolean restartsSignals(EngineConfig a, EngineConfig b) {
        return changed(a, b).stream().anyMatch(k -> DECISIONS.get(k).signals());
    }
}
