package io.tailwatch.daemon.alerts;

/** An alert moving from one state to another; {@code alert} is its state after the move. */
public record Transition(String from, String to, Alert alert) {
    /** Transitions a notifier reports: to firing, and from firing to resolved. */
    public boolean notifiable() {
        return to.equals(Alert.FIRING) || (to.equals(Alert.RESOLVED) && from.equals(Alert.FIRING));
    }
}
