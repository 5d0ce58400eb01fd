package io.tailwatch.core.host.macos;

import java.io.IOException;

/** TASK_VM_INFO of one process by pid: the raw struct and the words the kernel filled, or null where it cannot be read. */
public interface TaskVmSource {
    /** The struct's bytes and filled word count. */
    record Raw(byte[] bytes, int words) {
    }

    /** null when the process is gone or the agent may not read it (another user's process without root). */
    Raw read(int pid) throws IOException;
}
