package io.tailwatch.daemon.alerts;

import io.tailwatch.core.rules.AlertState;

/** An alert moving from one state to another; {@code alert} is its state after the move. */
public record Transition(AlertState from, AlertState to, Alert alert) {
    /** Transitions a notifier reports: to firing, and from firing to resolved. */
    public boolean notifiable() {
        return to == AlertState.FIRING || (to == AlertState.RESOLVED && from == AlertState.FIRING);
    }
}
