package io.tailwatch.core.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web config in force, re-read when the file or any certificate, key or CA file it names changes
 * (modification time, size or inode), checked on every TLS handshake and every request: as with
 * exporter-toolkit, which reads the file on each request, a rotated certificate is served on the next
 * connection without a restart. A change that does not load (a half-written key, a typo) is logged once
 * and the last good config stays in force. Whether the listener speaks TLS at all is fixed at start.
 */
public final class LiveWebConfig {
    private static final Logger LOG = LoggerFactory.getLogger(LiveWebConfig.class);

    private final Path file;
    private volatile WebConfig current;
    private volatile List<Object> stamp;
    private List<Object> failedStamp;

    private LiveWebConfig(Path file, WebConfig first) {
        this.file = file;
        this.current = first;
        this.stamp = stamp(first.files());
    }

    /** Loads the file; a problem stops the caller (exit 2 at start). */
    public static LiveWebConfig load(Path file) throws ConfigException {
        return new LiveWebConfig(file, WebConfig.load(file));
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
