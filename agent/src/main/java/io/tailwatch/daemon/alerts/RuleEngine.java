package io.tailwatch.daemon.alerts;

import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Expr;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.rules.Severity;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates every enabled rule over the hub's latest snapshot, once per host cycle. An instance
 * whose condition holds is pending, then firing once it has held for the rule's {@code for}; when
 * the condition stops holding a firing alert is resolved (kept listed for a while) and a pending
 * one dropped. Each change is a {@link Transition} for listeners (log line, webhook); firing and
 * pending instances are published as {@code tailwatch.alert.active}.
 */
public final class RuleEngine {
    private static final Logger LOG = LoggerFactory.getLogger(RuleEngine.class);
    static final int MAX_INSTANCES_PER_RULE = 200;
    static final int MAX_RESOLVED = 200;

    private record Compiled(RuleDef def, RulesConfig.RuleSettings settings, Expr expr) {
    }

    private static final class State {
        final RuleDef def;
        final Map<String, String> labels;
        AlertState state;
        Instant activeAt;
        Instant firedAt;
        Instant resolvedAt;
        double value;
        Map<String, Object> evidence = Map.of();

        State(RuleDef def, Map<String, String> labels) {
            this.def = def;
            this.labels = labels;
        }
    }

    private final List<Compiled> rules = new ArrayList<>();
    private final MetricHub hub;
    private final BaselineStore baselines;
    private final int baselineMinSamples;
    private final Duration resolvedRetention;
    private final List<String> interactive;
    private final String runbookBase;
    private final Expr swapMin = Expr.minOverTime(
            Expr.select(HostMetrics.PAGING_USAGE, PagingState.USED), Rules.SWAP_GROWTH_SPAN);
    private final Map<String, State> states = new LinkedHashMap<>();
    private final List<Consumer<Transition>> listeners = new CopyOnWriteArrayList<>();
    /** Transitions a reload caused (firing alerts of rules it disabled, resolved), told at the next evaluation. */
    private final List<Transition> carried = new ArrayList<>();
    private volatile List<Alert> alerts = List.of();
    private volatile Signals signals = Signals.EMPTY;

    public RuleEngine(RulesConfig config, List<String> interactiveScenarios, MetricHub hub, BaselineStore baselines,
                      int baselineMinSamples, Duration resolvedRetention) {
        this(config, interactiveScenarios, hub, baselines, baselineMinSamples, resolvedRetention, null);
    }

    /** {@code runbookBaseUrl}: absolute URL of the runbook page every alert links to (null = relative links). */
    public RuleEngine(RulesConfig config, List<String> interactiveScenarios, MetricHub hub, BaselineStore baselines,
                      int baselineMinSamples, Duration resolvedRetention, String runbookBaseUrl) {
        this.runbookBase = runbookBaseUrl;
        this.hub = hub;
        this.baselines = baselines;
        this.baselineMinSamples = baselineMinSamples;
        this.resolvedRetention = resolvedRetention;
        this.interactive = List.copyOf(interactiveScenarios);
        for (RuleDef def : Rules.ALL) {
            RulesConfig.RuleSettings s = config.of(def.name());
            if (s == null || !s.enabled() || !Rules.agentEvaluated(def)) {
                continue;
            }
            double t = s.threshold() == null ? Double.NaN : s.threshold();
            rules.add(new Compiled(def, s, def.build(new RuleDef.Params(t, interactive))));
        }
    }

    public void addListener(Consumer<Transition> l) {
        listeners.add(l);
    }

    private volatile java.util.function.Supplier<java.util.Collection<String>> watchedEngines;

    /** Exports only the baselines of these engines (the ones the daemon watches); unset: all. */
    public void exportBaselinesOf(java.util.function.Supplier<java.util.Collection<String>> engines) {
        this.watchedEngines = engines;
    }

    /** The enabled rules with their effective settings. */
    public List<String> enabledRules() {
        return rules.stream().map(c -> c.def().name()).toList();
    }

    /**
     * Takes over the alert instances of {@code previous}, the evaluator of the config a reload replaces:
     * an instance of a rule this one evaluates keeps its state, its {@code for} timer and its evidence
     * (the next evaluation judges it by the new settings: a condition that no longer holds resolves it,
     * and the webhook hears so); a firing instance of a rule no longer enabled is resolved at {@code now},
     * told to the listeners at the next evaluation. Call before this evaluator runs.
     */
    public void adopt(RuleEngine previous, Instant now) {
        Map<String, State> old;
        Map<String, Alert> views = new LinkedHashMap<>();
        synchronized (previous) {
            old = new LinkedHashMap<>(previous.states);
            synchronized (previous.carried) {
                carried.addAll(previous.carried);
            }
            for (Map.Entry<String, State> e : old.entrySet()) {
                views.put(e.getKey(), previous.view(e.getValue(), previous.compiled(e.getValue().def)));
            }
        }
        synchronized (this) {
            for (Map.Entry<String, State> e : old.entrySet()) {
                State st = e.getValue();
                if (find(st.def) != null) {
                    states.put(e.getKey(), st);
                } else if (st.state == AlertState.FIRING) {
                    Alert a = views.get(e.getKey());
                    Alert resolved = new Alert(a.name(), AlertState.RESOLVED, a.severity(), now, a.activeAt(), a.firedAt(), now,
                            a.value(), a.valueText(), a.threshold(), a.thresholdText(), a.labels(), a.evidence(), a.summary(),
                            a.description(), a.runbook());
                    synchronized (carried) {
                        carried.add(new Transition(AlertState.FIRING, AlertState.RESOLVED, resolved));
                    }
                }
            }
            alerts = render();
        }
        signals = previous.signals;
    }

    private Compiled find(RuleDef def) {
        for (Compiled c : rules) {
            if (c.def() == def) {
                return c;
            }
        }
        return null;
    }

    /** One evaluation cycle at {@code now}; returns the transitions it caused. */
    public List<Transition> evaluate(Instant now) {
        if (baselines != null) {
            baselines.learnFromWindows(hub.snapshot(), baselineMinSamples, now);
            java.util.function.Supplier<java.util.Collection<String>> w = watchedEngines;
            hub.publish("rules/baseline", baselines.points(w == null ? null : w.get()));
        }
        hub.refresh();
        MetricSnapshot snap = hub.snapshot();
        List<Expr.Sample> min = swapMin.eval(snap, now);
        Double swapUsed = snap.value(HostMetrics.PAGING_USAGE, PagingState.USED);
        Double change = swapUsed == null || min.isEmpty() ? null : swapUsed - min.get(0).value();
        Signals sig = Signals.of(snap, change, interactive);
        signals = sig;
        List<Transition> out = new ArrayList<>();
        synchronized (carried) {
            out.addAll(carried);
            carried.clear();
        }
        synchronized (this) {
            for (Compiled c : rules) {
                evaluateRule(c, snap, sig, now, out);
            }
            expireResolved(now);
            alerts = render();
        }
        publish();
        for (Transition t : out) {
            logTransition(t);
            for (Consumer<Transition> l : listeners) {
                try {
                    l.accept(t);
                } catch (RuntimeException e) {
                    LOG.warn("alert listener failed: {}", e.toString());
                }
            }
        }
        return out;
    }

    private void evaluateRule(Compiled c, MetricSnapshot snap, Signals sig, Instant now, List<Transition> out) {
        List<Expr.Sample> samples;
        try {
            samples = c.expr().eval(snap, now);
        } catch (RuntimeException e) {
            LOG.warn("rule {} failed to evaluate: {}", c.def().name(), e.toString());
            return;
        }
        Set<String> seen = new HashSet<>();
        int count = 0;
        for (Expr.Sample s : samples) {
            if (++count > MAX_INSTANCES_PER_RULE) {
                break;
            }
            String key = c.def().name() + s.labels();
            seen.add(key);
            State st = states.get(key);
            if (st == null || st.state == AlertState.RESOLVED) {
                st = new State(c.def(), s.labels());
                st.state = AlertState.PENDING;
                st.activeAt = now;
                states.put(key, st);
                st.value = s.value();
                if (!c.settings().forDuration().isZero()) {
                    out.add(new Transition(AlertState.INACTIVE, AlertState.PENDING, view(st, c)));
                }
            }
            st.value = s.value();
            if (st.state == AlertState.PENDING
                    && Duration.between(st.activeAt, now).compareTo(c.settings().forDuration()) >= 0) {
                st.state = AlertState.FIRING;
                st.firedAt = now;
                st.evidence = Evidence.gather(sig, s.labels());
                out.add(new Transition(c.settings().forDuration().isZero() ? AlertState.INACTIVE : AlertState.PENDING,
                        AlertState.FIRING, view(st, c)));
            }
        }
        for (Iterator<Map.Entry<String, State>> it = states.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, State> e = it.next();
            State st = e.getValue();
            if (st.def != c.def() || seen.contains(e.getKey()) || st.state == AlertState.RESOLVED) {
                continue;
            }
            if (st.state == AlertState.FIRING) {
                st.state = AlertState.RESOLVED;
                st.resolvedAt = now;
                out.add(new Transition(AlertState.FIRING, AlertState.RESOLVED, view(st, c)));
            } else {
                it.remove();
                out.add(new Transition(AlertState.PENDING, AlertState.INACTIVE, view(st, c)));
            }
        }
    }

    private void expireResolved(Instant now) {
        List<Map.Entry<String, State>> resolved = new ArrayList<>();
        for (Map.Entry<String, State> e : states.entrySet()) {
            if (e.getValue().state == AlertState.RESOLVED) {
                resolved.add(e);
            }
        }
        resolved.sort(Comparator.comparing(e -> e.getValue().resolvedAt));
        int excess = resolved.size() - MAX_RESOLVED;
        for (Map.Entry<String, State> e : resolved) {
            if (excess-- > 0 || Duration.between(e.getValue().resolvedAt, now).compareTo(resolvedRetention) > 0) {
                states.remove(e.getKey());
            }
        }
    }

    private Compiled compiled(RuleDef def) {
        Compiled c = find(def);
        if (c == null) {
            throw new IllegalStateException(def.name());
        }
        return c;
    }

    private List<Alert> render() {
        List<Alert> list = new ArrayList<>();
        for (State st : states.values()) {
            list.add(view(st, compiled(st.def)));
        }
        list.sort(WORST_FIRST);
        return List.copyOf(list);
    }

    /** Firing before pending before resolved; then critical first; then oldest first. */
    public static final Comparator<Alert> WORST_FIRST = Comparator
            .comparingInt((Alert a) -> switch (a.state()) {
                case FIRING -> 0;
                case PENDING -> 1;
                default -> 2;
            })
            .thenComparing(a -> -a.severity().ordinal())
            .thenComparing(Alert::activeAt);

    private Alert view(State st, Compiled c) {
        RuleDef d = st.def;
        Double t = c.settings().threshold();
        Instant since = switch (st.state) {
            case FIRING -> st.firedAt;
            case RESOLVED -> st.resolvedAt;
            default -> st.activeAt;
        };
        Duration f = c.settings().forDuration();
        return new Alert(d.name(), st.state, d.severity(), since, st.activeAt, st.firedAt, st.resolvedAt,
                st.value, d.valueKind().format(st.value), t, t == null ? null : d.thresholdKind().format(t),
                st.labels, st.evidence, d.render(d.summary(), st.value, st.labels, t, f),
                d.render(d.description(), st.value, st.labels, t, f), d.runbook(runbookBase));
    }

    private void publish() {
        Map<Point.SeriesKey, Point> points = new LinkedHashMap<>();
        for (Alert a : alerts) {
            if (a.state() == AlertState.RESOLVED) {
                continue;
            }
            // Host alerts have no engine or scenario: those labels are left out, not exported empty.
            List<String> kv = new ArrayList<>(List.of(AttrKeys.ALERT_NAME, a.name()));
            for (String[] l : new String[][] {{Rules.ENGINE, AttrKeys.ENGINE}, {Rules.SCENARIO, AttrKeys.SCENARIO}}) {
                String v = a.labels().get(l[0]);
                if (v != null && !v.isEmpty()) {
                    kv.add(l[1]);
                    kv.add(v);
                }
            }
            Point p = Point.of(AlertMetrics.ALERT_ACTIVE, a.state() == AlertState.FIRING ? 1 : 0, a.severity().attr(),
                    kv.toArray(new String[0]));
            // Several instances may share these labels (e.g. two models): the worst one is kept.
            points.merge(p.key(), p, (x, y) -> x.value() >= y.value() ? x : y);
        }
        hub.publish("rules/alerts", new ArrayList<>(points.values()));
    }

    private static void logTransition(Transition t) {
        Alert a = t.alert();
        StringBuilder b = new StringBuilder("event=alert_transition");
        Logfmt.pair(b, "alertname", a.name());
        Logfmt.pair(b, "from", t.from().label());
        Logfmt.pair(b, "to", t.to().label());
        Logfmt.pair(b, "severity", a.severity().label());
        for (Map.Entry<String, String> e : a.labels().entrySet()) {
            Logfmt.pair(b, e.getKey(), e.getValue());
        }
        Logfmt.pair(b, "value", a.valueText());
        if (a.thresholdText() != null) {
            Logfmt.pair(b, "threshold", a.thresholdText());
        }
        Logfmt.pair(b, "since", String.valueOf(a.since()));
        Logfmt.pair(b, "runbook", a.runbook());
        if (t.to() == AlertState.FIRING || t.to() == AlertState.RESOLVED) {
            LOG.warn(b.toString());
        } else {
            LOG.info(b.toString());
        }
    }

    /** Current alerts, worst first (firing, pending, then recently resolved). */
    public List<Alert> alerts() {
        return alerts;
    }

    /** Figures from the last evaluated snapshot. */
    public Signals signals() {
        return signals;
    }
}
