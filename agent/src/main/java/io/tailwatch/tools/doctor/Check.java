package io.tailwatch.tools.doctor;

/**
 * One line of {@code tailwatch doctor}: a signal as tailwatch read it natively beside the same
 * signal read through an OS tool, the tolerance they must agree within, and the verdict.
 */
public record Check(String signal, String nativeValue, String tool, String toolValue, String tolerance,
                    Verdict verdict, String note) {

    public enum Verdict {
        /** Native and tool readings agree within the tolerance. */
        AGREE("agree"),
        /** They differ by more than the tolerance, or native is missing what the tool shows. */
        DISAGREE("DISAGREE"),
        /** No tool prints this signal; the native value passed its invariants (range, enum). */
        CHECKED("ok (native only)"),
        /** The native value broke an invariant (e.g. negative power, level outside its enum). */
        INVALID("INVALID"),
        /** Neither side has the signal on this machine, or the tool could not be run. */
        UNAVAILABLE("n/a");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public boolean failed() {
            return this == DISAGREE || this == INVALID;
        }
    }
}
