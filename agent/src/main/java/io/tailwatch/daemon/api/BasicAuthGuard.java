package io.tailwatch.daemon.api;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.config.WebConfig;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.AuthFailureReason;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs before every handler: sets the configured response headers, then, when the web config has
 * basic_auth_users, demands a user and password that match its bcrypt hash. /healthz stays open (a
 * liveness probe carries no credentials and its answer holds no data); /api/* is left to the bearer
 * token when server.auth_token is set.
 *
 * <p>bcrypt costs tens of milliseconds by design, so a verified password is remembered as an HMAC (a
 * per-process random key) of hash and password, one entry per configured user at most: a scrape every
 * 15 s pays one bcrypt, not one per scrape. A changed hash or password misses the cache. Comparisons are
 * constant-time (MessageDigest.isEqual; BouncyCastle's bcrypt check), and an unknown user pays a bcrypt
 * against a fixed hash too, so timing does not tell which users exist. Failures are counted in
 * tailwatch_http_auth_failures_total by reason and logged with the remote address and user name, never
 * the password; at most one log line a second.
 */
public final class BasicAuthGuard implements Handler {
    private static final Logger LOG = LoggerFactory.getLogger(BasicAuthGuard.class);
    /** A bcrypt of a random password at the usual cost, checked for unknown users. */
    private static final String DECOY;
    private static final byte[] MAC_KEY = new byte[32];

    static {
        SecureRandom r = new SecureRandom();
        r.nextBytes(MAC_KEY);
        byte[] salt = new byte[16];
        r.nextBytes(salt);
        byte[] pw = new byte[16];
        r.nextBytes(pw);
        DECOY = OpenBSDBCrypt.generate("2y", pw, salt, 10);
    }

    private final LiveWebConfig live;
    private final boolean tokenOnApi;
    private final Map<String, byte[]> verified = new ConcurrentHashMap<>();
    private final Map<AuthFailureReason, AtomicLong> failures = new EnumMap<>(AuthFailureReason.class);
    private final AtomicLong lastLog = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    /** bcrypt computations so far (the cache's effect, for tests). */
    final AtomicLong bcryptRuns = new AtomicLong();
    /** The user name of the request being checked, for the log line only. */
    private final ThreadLocal<String> lastUser = new ThreadLocal<>();

    public BasicAuthGuard(LiveWebConfig live, boolean tokenOnApi) {
        this.live = live;
        this.tokenOnApi = tokenOnApi;
        for (AuthFailureReason r : AuthFailureReason.values()) {
            failures.put(r, new AtomicLong());
        }
    }

    @Override
    public void handle(Context ctx) {
        WebConfig wc = live.current();
        for (Map.Entry<String, String> h : wc.headers().entrySet()) {
            ctx.header(h.getKey(), h.getValue());
        }
        String path = ctx.path();
        if (!wc.basicAuth() || path.equals("/healthz") || (tokenOnApi && path.startsWith("/api/"))) {
            return;
        }
        AuthFailureReason reason = check(wc.users(), ctx.header("Authorization"));
        if (reason == null) {
            return;
        }
        failures.get(reason).incrementAndGet();
        logFailure(ctx, reason);
        ctx.header("WWW-Authenticate", "Basic realm=\"tailwatch\", charset=\"UTF-8\"");
        ctx.status(401).contentType("text/plain; charset=utf-8").result("Unauthorized\n");
        ctx.skipRemainingHandlers();
    }

    /** Null when the credentials are good; else the failure reason. */
    public AuthFailureReason check(Map<String, String> users, String authorization) {
        if (authorization == null || authorization.isBlank()) {
            lastUser.set(null);
            return AuthFailureReason.MISSING;
        }
        if (authorization.length() < 6 || !authorization.regionMatches(true, 0, "Basic ", 0, 6) || authorization.length() > 4096) {
            lastUser.set(null);
            return AuthFailureReason.MALFORMED;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            lastUser.set(null);
            return AuthFailureReason.MALFORMED;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            lastUser.set(null);
            return AuthFailureReason.MALFORMED;
        }
        String user = decoded.substring(0, colon);
        byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        lastUser.set(user);
        String hash = users.get(user);
        if (hash == null) {
            bcrypt(DECOY, password);
            return AuthFailureReason.UNKNOWN_USER;
        }
        byte[] mac = mac(hash, password);
        byte[] known = verified.get(user);
        if (known != null && MessageDigest.isEqual(known, mac)) {
            return null;
        }
        if (bcrypt(hash, password)) {
            if (verified.size() < WebConfig.MAX_USERS || verified.containsKey(user)) {
                verified.put(user, mac);
            }
            return null;
        }
        return AuthFailureReason.WRONG_PASSWORD;
    }

    private boolean bcrypt(String hash, byte[] password) {
        bcryptRuns.incrementAndGet();
        try {
            return OpenBSDBCrypt.checkPassword(hash, password);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static byte[] mac(String hash, byte[] password) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(MAC_KEY, "HmacSHA256"));
            m.update(hash.getBytes(StandardCharsets.US_ASCII));
            m.update((byte) 0);
            return m.doFinal(password);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private void logFailure(Context ctx, AuthFailureReason reason) {
        long now = System.currentTimeMillis();
        long last = lastLog.get();
        if (now - last < 1000 || !lastLog.compareAndSet(last, now)) {
            suppressed.incrementAndGet();
            return;
        }
        long more = suppressed.getAndSet(0);
        String user = lastUser.get();
        LOG.warn("basic auth failed ({}) from {} for {} {}{}{}", reason.value(), ctx.ip(), ctx.method(), escape(ctx.path()),
                user == null ? "" : " as user " + escape(user),
                more == 0 ? "" : " (" + more + " more failures not logged)");
    }

    /** Printable ASCII only, bounded: values from the network reach the log escaped. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < 128; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        if (s.length() > 128) {
            b.append("...");
        }
        return b.append('"').toString();
    }

    /** The failure counters, published with the host samples. */
    public void publishTo(MetricHub hub) {
        List<Point> points = new ArrayList<>();
        for (AuthFailureReason r : AuthFailureReason.values()) {
            points.add(Point.of(SelfMetrics.HTTP_AUTH_FAILURES, failures.get(r).get(), r));
        }
        hub.publish("http-auth", points);
    }

    public long failures(AuthFailureReason reason) {
        return failures.get(reason).get();
    }
}
