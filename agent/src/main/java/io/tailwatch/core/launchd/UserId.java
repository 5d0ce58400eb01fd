package io.tailwatch.core.launchd;

import com.sun.security.auth.module.UnixSystem;

/** The numeric user id of this process, for launchd's gui/UID domain. */
public final class UserId {
    private UserId() {
    }

    public static long current() {
        return new UnixSystem().getUid();
    }
}
