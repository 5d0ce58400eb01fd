package io.tailwatch.bench;

import io.tailwatch.core.host.macos.MacNativeMetal;

/**
 * What loading Metal costs a JVM's memory, in the agent's own path: {@code MacNativeMetal.open()}
 * (libobjc, the Metal framework, {@code MTLCreateSystemDefaultDevice}) and one read of
 * {@code recommendedMaxWorkingSetSize}. macOS only. Prints {@code before PID} after a full GC and
 * {@code idle} seconds of quiet, loads Metal, prints {@code after LIMIT_BYTES} after the same quiet, then
 * waits to be killed; bench/metal-cost.sh reads the process's footprint at both points.
 */
public final class MetalCost {
    private MetalCost() {
    }

    public static void main(String[] args) throws Exception {
        int idle = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        quiet(idle);
        System.out.println("before " + ProcessHandle.current().pid());
        System.out.flush();
        // bench/metal-cost.sh takes the "before" footprint here, then sends a line on stdin
        if (System.in.read() < 0) {
            return;
        }
        long limit = MacNativeMetal.open().recommendedMaxWorkingSetSize();
        quiet(idle);
        System.out.println("after " + limit);
        System.out.flush();
        System.in.read();
    }

    private static void quiet(int seconds) throws InterruptedException {
        System.gc();
        Thread.sleep(seconds * 1000L);
    }
}
