package io.tailwatch.core.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import java.io.IOException;

/**
 * Thermal pressure through libSystem's notify(3) API, which jna-platform does not map. One token
 * is registered on open and cancelled on close; each read is one notify_get_state call.
 */
public final class MacNativeNotify implements ThermalPressureSource, AutoCloseable {
    public static final String THERMAL_PRESSURE = "com.apple.system.thermalpressurelevel";
    private static final int NOTIFY_STATUS_OK = 0;

    interface Notify extends Library {
        Notify INSTANCE = Native.load("System", Notify.class);

        int notify_register_check(String name, IntByReference token);

        int notify_get_state(int token, LongByReference state);

        int notify_cancel(int token);
    }

    private final int token;
    private boolean closed;

    private MacNativeNotify(int token) {
        this.token = token;
    }

    public static MacNativeNotify open() throws IOException {
        IntByReference token = new IntByReference();
        int status = Notify.INSTANCE.notify_register_check(THERMAL_PRESSURE, token);
        if (status != NOTIFY_STATUS_OK) {
            throw new IOException("notify_register_check(" + THERMAL_PRESSURE + ") failed with status " + status);
        }
        return new MacNativeNotify(token.getValue());
    }

    @Override
    public synchronized long thermalPressureState() throws IOException {
        if (closed) {
            throw new IOException("thermal pressure notification closed");
        }
        LongByReference state = new LongByReference();
        int status = Notify.INSTANCE.notify_get_state(token, state);
        if (status != NOTIFY_STATUS_OK) {
            throw new IOException("notify_get_state(" + THERMAL_PRESSURE + ") failed with status " + status);
        }
        return state.getValue();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            Notify.INSTANCE.notify_cancel(token);
        }
    }
}
