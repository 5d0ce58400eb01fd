package io.tailwatch.core.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web config in force, re-read when the file or any certificate, key or CA file it names changes
 * (modification time, size or inode), checked on every TLS handshake and every request: as with
 * exporter-toolkit, which reads the file on each request, a rotated certificate is served on the next
 * connection without a restart. A change that does not load (a half-written key, a typo) is logged once
 * and the last good config stays in force. Whether the listener speaks TLS at all is fixed at start.
 * A change that would drop basic auth while a listener it guards is reachable from other hosts (the
 * agent's or a proxy's, as {@code exposed} tells at the time of the change) is refused the same way and
 * logged as an error: an edit never leaves an exposed listener open to anyone.
 */
public final class LiveWebConfig {
    private static final Logger LOG = LoggerFactory.getLogger(LiveWebConfig.class);

    private final Path file;
    private final BooleanSupplier exposed;
    private volatile WebConfig current;
    private volatile List<Object> stamp;
    private List<Object> failedStamp;

    private LiveWebConfig(Path file, WebConfig first, BooleanSupplier exposed) {
        this.file = file;
        this.exposed = exposed;
        this.current = first;
        this.stamp = stamp(first.files());
    }

    /** Loads the file; a problem stops the caller (exit 2 at start). */
    public static LiveWebConfig load(Path file) throws ConfigException {
        return load(file, () -> false);
    }

    /**
     * Loads the file; {@code exposed} answers, when a change is read, whether a listener this config guards
     * is reachable from other hosts (not on a loopback address).
     */
    public static LiveWebConfig load(Path file, BooleanSupplier exposed) throws ConfigException {
        return new LiveWebConfig(file, WebConfig.load(file), exposed);
    }

    /**
     * Why {@code next} may not replace {@code current} live, or null when it may: dropping basic auth while
     * a listener it guards is exposed would open that listener to anyone who can reach it.
     */
    static String refusal(WebConfig current, WebConfig next, boolean exposed) {
        if (exposed && current.basicAuth() && !next.basicAuth()) {
            return "it has no basic_auth_users, and a listener it guards is reachable from other hosts: it would serve"
                    + " anyone unauthenticated";
        }
        return null;
    }

    public Path file() {
        return file;
    }

    /** The config in force, re-read first when a file changed. */
    public WebConfig current() {
        WebConfig c = current;
        List<Object> now = stamp(c.files());
        if (now.equals(stamp)) {
            return c;
        }
        return reload(now);
    }

    private synchronized WebConfig reload(List<Object> seen) {
        if (seen.equals(stamp)) {
            return current;
        }
        if (seen.equals(failedStamp)) {
            return current;
        }
        try {
            WebConfig next = WebConfig.load(file);
            String refused = refusal(current, next, exposed.getAsBoolean());
            if (refused != null) {
                failedStamp = seen;
                LOG.error("web config {} changed but is refused, keeping the previous one: {}", file, refused);
                return current;
            }
            boolean tlsNow = next.tls() != null;
            if (tlsNow != (current.tls() != null)) {
                LOG.warn("web config {}: tls_server_config was {}; switching between HTTP and HTTPS needs a restart, "
                        + "the listener keeps {}", file, tlsNow ? "added" : "removed", current.tls() != null ? "HTTPS" : "HTTP");
                if (!tlsNow) {
                    failedStamp = seen;
                    return current;
                }
                next = new WebConfig(next.file(), null, next.users(), next.headers());
            }
            current = next;
            stamp = stamp(next.files());
            failedStamp = null;
            LOG.info("web config {} reloaded ({} basic-auth users{})", file, next.users().size(),
                    next.tls() == null ? "" : ", certificate " + next.tls().chain()[0].getSubjectX500Principal().getName());
        } catch (ConfigException e) {
            failedStamp = seen;
            LOG.warn("web config {} changed but cannot be used, keeping the previous one: {}", file,
                    e.getMessage().replace('\n', ' '));
        }
        return current;
    }

    /** (file, mtime, size, inode) of each file; a missing file is its own state. */
    private static List<Object> stamp(List<Path> files) {
        List<Object> out = new ArrayList<>(files.size() * 3);
        for (Path p : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                out.add(a.lastModifiedTime());
                out.add(a.size());
                out.add(Objects.toString(a.fileKey()));
            } catch (IOException e) {
                out.add("missing:" + p);
            }
        }
        return out;
    }
}
