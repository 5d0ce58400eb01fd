package io.tailwatch.core.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;

/**
 * {@code task_name_for_pid} then {@code task_info(TASK_VM_INFO)} on the name port, then
 * {@code mach_port_deallocate} of the port: the calls {@code footprint} and Activity Monitor's GPU memory
 * column rest on. A name port is granted for the agent's own user's processes (any process as root), and
 * task_info accepts it for this flavor; a refused pid reads as null.
 */
final class MacNativeTaskVm implements TaskVmSource {
    interface Lib extends Library {
        int mach_task_self();

        int task_name_for_pid(int targetTask, int pid, IntByReference task);

        int task_info(int task, int flavor, Pointer info, IntByReference count);

        int mach_port_deallocate(int task, int name);
    }

    private final Lib lib;

    private MacNativeTaskVm(Lib lib) {
        this.lib = lib;
    }

    static MacNativeTaskVm open() throws IOException {
        try {
            return new MacNativeTaskVm(Native.load("System", Lib.class));
        } catch (UnsatisfiedLinkError e) {
            throw new IOException("libSystem task_info: " + e.getMessage(), e);
        }
    }

    @Override
    public Raw read(int pid) {
        int self = lib.mach_task_self();
        IntByReference port = new IntByReference();
        if (lib.task_name_for_pid(self, pid, port) != 0 || port.getValue() == 0) {
            return null;
        }
        try {
            Memory buf = new Memory(TaskVmInfo.COUNT * 4L);
            buf.clear();
            IntByReference count = new IntByReference(TaskVmInfo.COUNT);
            if (lib.task_info(port.getValue(), TaskVmInfo.FLAVOR, buf, count) != 0) {
                return null;
            }
            int words = Math.min(count.getValue(), TaskVmInfo.COUNT);
            return new Raw(buf.getByteArray(0, TaskVmInfo.COUNT * 4), words);
        } finally {
            lib.mach_port_deallocate(self, port.getValue());
        }
    }
}
