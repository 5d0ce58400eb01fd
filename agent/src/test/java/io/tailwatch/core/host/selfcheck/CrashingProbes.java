package io.tailwatch.core.host.selfcheck;

import com.sun.jna.Pointer;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.host.NativeProbes;
import java.io.IOException;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Probes for the self-check tests, built by the child process by class name: one that returns, one that
 * throws, one that reads address 1 through JNA (a real SIGSEGV in native code, JNA's protection off),
 * one that halts the JVM as a native exit() would, and one that never returns.
 */
public final class CrashingProbes implements NativeProbes {
    public CrashingProbes() {
    }

    @Override
    public List<NativeProbe> probes() {
        return List.of(
                NativeProbe.of("ok", () -> {
                }),
                NativeProbe.of("ok-too", () -> {
                }),
                NativeProbe.of("throws", () -> {
                    throw new IOException("library not found on this build");
                }),
                NativeProbe.of("wrong-layout", () -> {
                    throw new NativeProbe.WrongLayout("channel CPU Energy has unit 'W', not an energy unit");
                }),
                NativeProbe.of("segv", () -> new Pointer(1).getInt(0)),
                NativeProbe.of("halt", () -> Runtime.getRuntime().halt(7)),
                NativeProbe.of("hang", () -> Thread.sleep(600_000)));
    }

    /** A native sampler that names {@code probe}, counts its calls and publishes one point. */
    public static Sampler sampler(String name, String probe, AtomicInteger calls) {
        return new NativeSampler() {
            public String name() {
                return name;
            }

            public String probeId() {
                return probe;
            }

            public List<Point> sample() {
                calls.incrementAndGet();
                return List.of(Point.of(HostMetrics.MEMORY_LIMIT, 1));
            }
        };
    }
}
