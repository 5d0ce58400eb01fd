package io.tailwatch.core.logging;

import java.net.URI;
import java.util.regex.Pattern;

/** Removes credentials from what is shown: logs, /api/v1/status, CLI output and reports. */
public final class Redact {
    private static final Pattern USERINFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s?#]*@");

    private Redact() {
    }

    /** The URL with any user:password part replaced by "***" (http://***@host:port/...). */
    public static String url(URI u) {
        if (u == null) {
            return null;
        }
        return u.getRawUserInfo() == null ? u.toString() : text(u.toString());
    }

    /** Every scheme://user:pass@ in free text (an error message, say) with the credentials replaced. */
    public static String text(String s) {
        return s == null ? null : USERINFO.matcher(s).replaceAll("$1***@");
    }
}
