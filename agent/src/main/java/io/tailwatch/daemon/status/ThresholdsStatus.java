package io.tailwatch.daemon.status;

import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The "thresholds" part of /api/v1/status: each enabled rule's effective threshold (as configured, else
 * its default), its hold time and severity, so a reader (the status page) can draw the line a figure
 * must cross without repeating the rule defaults. Rules without a threshold show only for and severity.
 */
public final class ThresholdsStatus implements StatusContributor {
    private final Map<String, Object> body;

    public ThresholdsStatus(RulesConfig config) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (RuleDef def : Rules.ALL) {
            RulesConfig.RuleSettings s = config.of(def.name());
            if (s == null || !s.enabled()) {
                continue;
            }
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("threshold", s.threshold());
            r.put("for_seconds", s.forDuration().toMillis() / 1000.0);
            r.put("severity", def.severity().label());
            r.put("runbook", def.runbook());
            m.put(def.name(), r);
        }
        this.body = java.util.Collections.unmodifiableMap(m);
    }

    @Override
    public String name() {
        return "thresholds";
    }

    @Override
    public Object status() {
        return body;
    }
}
