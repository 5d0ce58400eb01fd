package io.tailwatch.core.config;

import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code rules:} section, keyed by rule name. Each entry may set threshold, for and enabled;
 * whatever an entry leaves out keeps the rule's declared default. Unknown rule names are errors.
 */
public record RulesConfig(Map<String, RuleSettings> settings) {

    /** One rule's effective settings; {@code threshold} is null for rules without one. */
    public record RuleSettings(Double threshold, Duration forDuration, boolean enabled) {
    }

    public RulesConfig {
        settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    public static RulesConfig defaults() {
        Map<String, RuleSettings> m = new LinkedHashMap<>();
        for (RuleDef r : Rules.ALL) {
            m.put(r.name(), new RuleSettings(r.defaultThreshold(), r.defaultFor(), true));
        }
        return new RulesConfig(m);
    }

    public RuleSettings of(String rule) {
        return settings.get(rule);
    }

    static RulesConfig read(Section s) {
        Map<String, RuleSettings> m = new LinkedHashMap<>(defaults().settings());
        for (String key : s.keys()) {
            RuleDef def = Rules.byName(key);
            Section r = s.section(key);
            if (def == null) {
                ConfigNode.Entry e = ((ConfigNode.MapNode) s.node()).entries().get(key);
                s.problems().add(e.line(), e.column(), at(s, key), "unknown rule; known rules: "
                        + String.join(", ", Rules.ALL.stream().map(RuleDef::name).toList()));
                continue;
            }
            Double threshold = def.defaultThreshold();
            if (def.hasThreshold()) {
                threshold = r.scalar("threshold", def.defaultThreshold(), def.thresholdKind().expected(),
                        def.thresholdKind()::parse);
            } else if (r.has("threshold")) {
                r.string("threshold", null);
                r.problem("threshold", def.name() + " has no threshold (its condition is fixed); set for or enabled");
            }
            Duration forDuration = r.duration("for", def.defaultFor(), Duration.ZERO, Duration.ofDays(1));
            boolean enabled = r.bool("enabled", true);
            r.finish();
            m.put(def.name(), new RuleSettings(threshold, forDuration, enabled));
        }
        return new RulesConfig(m);
    }

    private static String at(Section s, String key) {
        return s.path().isEmpty() ? key : s.path() + "." + key;
    }
}
