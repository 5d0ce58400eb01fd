package io.tailwatch.core.host.selfcheck;

import com.sun.jna.Pointer;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.host.NativeProbes;
import java.io.IOException;
import java.util.List;

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
                NativeProbe.of("segv", () -> new Pointer(1).getInt(0)),
                NativeProbe.of("halt", () -> Runtime.getRuntime().halt(7)),
                NativeProbe.of("hang", () -> Thread.sleep(600_000)));
    }
}
