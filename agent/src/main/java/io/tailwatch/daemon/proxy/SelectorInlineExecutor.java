package io.tailwatch.daemon.proxy;

import java.util.concurrent.Executor;

/**
 * The executor of a proxy's connections to its engine. Jetty's selector hands every read of an engine
 * connection to another thread (and parks itself or a reserved thread in its place): two or more
 * context switches for every chunk of a stream, which on a small machine cost more than the chunk's
 * own work. Here a task submitted from inside a task this executor started (the selector's loop is
 * one) runs at once in the submitting thread instead; a task submitted from there in turn goes to
 * the pool, so nesting stays one level deep. That is safe only because nothing the engine side runs
 * blocks: the answer is written to the client without blocking ({@link ChunkWriter}), and the
 * request body is sent from the client side's own threads.
 */
final class SelectorInlineExecutor implements Executor {
    private static final int OUTSIDE = 0;
    private static final int IN_TASK = 1;
    private static final int INLINE = 2;
    private static final ThreadLocal<int[]> ROLE = ThreadLocal.withInitial(() -> new int[1]);

    private final Executor pool;

    SelectorInlineExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        int[] role = ROLE.get();
        if (role[0] == IN_TASK) {
            role[0] = INLINE;
            try {
                task.run();
            } finally {
                role[0] = IN_TASK;
            }
            return;
        }
        pool.execute(() -> {
            int[] r = ROLE.get();
            int before = r[0];
            r[0] = IN_TASK;
            try {
                task.run();
            } finally {
                r[0] = before;
            }
        });
    }

    /** The pool under it, for work that may block (it must not run in a selector's thread). */
    Executor pool() {
        return pool;
    }

    @Override
    public String toString() {
        return "SelectorInlineExecutor@" + Integer.toHexString(hashCode()) + "{" + pool + "}";
    }
}
