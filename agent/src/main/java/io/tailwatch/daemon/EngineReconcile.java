package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.engine.EngineReload;
import io.tailwatch.daemon.engine.EngineWatch;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A reload's pass over the watched engines: keeps every engine the new config still has with the keys its
 * watch is built from unchanged (the others applied to it in place, {@link EngineReload}), restarts the
 * ones whose such keys changed, drops the others, adds the new ones. A discovered engine stays while
 * {@code engines: auto} does.
 */
final class EngineReconcile {
    private EngineReconcile() {
    }

    /** @return what changed, for the log ("engine NAME dropped", ...) */
    static List<String> apply(EngineMonitor engines, EngineSignalMonitor signals, Set<String> discovered, Config next) {
        List<String> changes = new ArrayList<>();
        for (EngineWatch w : engines.watches()) {
            String name = w.config().name();
            EngineConfig was = w.config();
            EngineConfig now = next.engines().stream().filter(e -> e.name().equals(name)).findFirst().orElse(null);
            boolean keep = discovered.contains(name) ? next.autoEngines()
                    : now != null && !EngineReload.restartsWatch(was, now);
            if (keep && now != null && !now.equals(was)) {
                // Only keys the watch reads live or never reads changed: its state, windows and alerts stay.
                if (EngineReload.restartsSignals(was, now)) {
                    signals.remove(name);
                    signals.add(now);
                    changes.add("engine " + name + " signals");
                }
                engines.retune(now);
            } else if (!keep) {
                engines.remove(name);
                signals.remove(name);
                changes.add("engine " + name + " dropped");
            }
        }
        for (EngineConfig e : next.engines()) {
            if (engines.watch(e.name()) == null && engines.add(e)) {
                signals.add(e);
                changes.add("engine " + e.name() + " (re)started");
            }
        }
        return changes;
    }
}
