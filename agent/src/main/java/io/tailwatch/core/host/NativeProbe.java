package io.tailwatch.core.host;

/**
 * One native call path of a sampler, as the native self-check runs it: in a child process, before the
 * daemon makes the same calls on an OS build it has not seen (docs/macos.md, "Native self-check"). The
 * call should go through what the sampler's first sample goes through (open the library, make each
 * call once, release what it got), so a wrong mapping or a changed private API crashes the child, not
 * the daemon. Returning is a pass; throwing {@link WrongLayout} keeps its samplers out; throwing anything else means "this call fails here", which is safe to run (the
 * sampler reports its error each cycle); only a crash or a hang keeps the sampler out of the daemon.
 */
public interface NativeProbe {
    /** Stable id, recorded in the data directory: lower case, letters, digits and '-'. */
    String id();

    /** Runs in the child process only. */
    void call() throws Exception;

    /**
     * Thrown by a probe whose calls returned but read something that does not fit the layout the samplers
     * decode (an unknown unit, a negative or fill value where a counter belongs, a struct size or revision
     * that is not the documented one). It keeps the probe's samplers out of the daemon, as a crash does:
     * running them would export wrong figures.
     */
    final class WrongLayout extends Exception {
        public WrongLayout(String message) {
            super(message);
        }
    }

    /** A call that throws anything. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    static NativeProbe of(String id, Call call) {
        if (!id.matches("[a-z0-9][a-z0-9-]{0,63}")) {
            throw new IllegalArgumentException("native probe id must be lower case letters, digits and '-': " + id);
        }
        return new NativeProbe() {
            public String id() {
                return id;
            }

            public void call() throws Exception {
                call.run();
            }

            @Override
            public String toString() {
                return "probe " + id;
            }
        };
    }
}
