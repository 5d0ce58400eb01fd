package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.daemon.alerts.RuleExport;
import java.util.Objects;

/**
 * Which of the daemon's parts a reload from {@code prev} to {@code next} restarts, read from the two configs
 * alone (docs/reliability.md, "Reload"). The engines are reconciled one by one ({@link EngineReconcile}) and
 * the alert sinks decide on the listener in force ({@link AlertDelivery#reload}), so neither is here.
 *
 * @param listener the server settings changed: a new listener
 * @param sameAddress the new listener binds the address the running one holds, which is given back first
 * @param host the host settings changed: a new sampling loop
 * @param history the sampling interval changed: a new last-hour history
 * @param otlp the OTLP push settings changed
 * @param rules the rules, the alert settings or the interactive scenarios changed: a new evaluator adopting the old one's state
 * @param baselines the baseline file changed: the store is opened anew
 */
record ReloadPlan(boolean listener, boolean sameAddress, boolean host, boolean history, boolean otlp, boolean rules,
        boolean baselines) {

    /** The plan for a daemon running {@code prev} whose listener is bound to {@code boundPort}. */
    static ReloadPlan of(Config prev, Config next, int boundPort) {
        boolean listener = !next.server().equals(prev.server());
        boolean sameAddress = listener && next.server().port() == boundPort
                && next.server().host().equals(prev.server().host());
        boolean host = !next.host().equals(prev.host());
        boolean history = !next.host().interval().equals(prev.host().interval());
        boolean otlp = !next.otlp().equals(prev.otlp());
        boolean rules = !next.rules().equals(prev.rules()) || !next.alerts().equals(prev.alerts())
                || !RuleExport.interactiveScenarios(next).equals(RuleExport.interactiveScenarios(prev));
        boolean baselines = rules && !Objects.equals(next.alerts().baselineFile(), prev.alerts().baselineFile());
        return new ReloadPlan(listener, sameAddress, host, host && history, otlp, rules, baselines);
    }
}
