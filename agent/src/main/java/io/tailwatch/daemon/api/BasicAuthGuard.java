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
 * against a decoy hash at the highest cost the web config uses, so with one cost for all users timing
 * does not tell which users exist (docs/fleet.md says what a mix of costs shows).
 *
 * <p>At most {@link #MAX_BCRYPT} bcrypt checks run at once (one per core but one, at least one, at most two), handed out in
 * turns that are fair per user name ({@link FairTurns}): a check that finds them busy waits in its user's queue
 * ({@link #WAITING_PER_USER} at most; every unknown name shares one queue, so guessing random names is one
 * identity), at most {@link #MAX_WAITING} wait in all and each at most {@link #MAX_WAIT}, and a freed check goes to
 * the next user in round-robin order. A guessing flood against one user therefore takes one turn in every round
 * and never more: another user (verified before or not) gets the next turn but one. A request whose user's queue
 * (or every queue) is full, or whose wait ran out, is answered 429 with Retry-After at once, without a bcrypt,
 * so guessing in parallel cannot hold the eight worker threads: /healthz and requests whose password was
 * verified before (the cache above) keep answering. Failures are counted in
 * tailwatch_http_auth_failures_total by reason and logged with the remote address and user name, never
 * the password; at most one log line a second.
 */
public final class BasicAuthGuard implements Handler {
    private static final Logger LOG = LoggerFactory.getLogger(BasicAuthGuard.class);
    private static final byte[] MAC_KEY = new byte[32];
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * bcrypt checks that may run at once: one per core but one, at least one and at most two, so that with the
     * {@link #MAX_WAITING} waiting checks they hold at most six of the listener's eight worker threads.
     */
    static final int MAX_BCRYPT = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors() - 1));

    static {
        RANDOM.nextBytes(MAC_KEY);
    }

    /** Decoy hashes (of a random password) by cost, made on first use; at most the 28 costs bcrypt has. */
    private static final Map<Integer, String> DECOYS = new ConcurrentHashMap<>();

    /** Checks of one user (or of all unknown names together) that may wait for a bcrypt turn. */
    static final int WAITING_PER_USER = 1;
    /**
     * Checks that may wait for a bcrypt turn in all: with the running ones they hold at most 6 of the listener's 8
     * worker threads, and guesses against up to three identities at once leave a turn for a fourth.
     */
    static final int MAX_WAITING = 4;
    /** The longest a check waits for its turn: within Prometheus's default 10 s scrape timeout. */
    static final java.time.Duration MAX_WAIT = java.time.Duration.ofSeconds(8);
    /** The queue every user name that is not configured shares. */
    private static final Object UNKNOWN = new Object();

    /** The request's user had no bcrypt turn free in time: it is answered 429 without one. */
    public static final class Busy extends RuntimeException {
        Busy() {
            super("too many password checks for this user at once", null, false, false);
        }
    }

    /** The bcrypt turns (their counters, for tests). */
    final FairTurns turns;
    private final long maxWaitNanos;
    /** Requests answered 429 because their user's queue (or every queue) was full or their wait ran out. */
    final AtomicLong busyRejections = new AtomicLong();

    private final LiveWebConfig live;
    private final boolean tokenOnApi;
    private final Map<String, byte[]> verified = new ConcurrentHashMap<>();
    private final Map<AuthFailureReason, AtomicLong> failures = new EnumMap<>(AuthFailureReason.class);
    private final AtomicLong lastLog = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    /** bcrypt computations so far (the cache's effect, for tests). */
    final AtomicLong bcryptRuns = new AtomicLong();
    /** bcrypt work so far, 2^cost per computation (which cost was paid, for tests). */
    final AtomicLong bcryptWork = new AtomicLong();
    /** The user name of the request being checked, for the log line only. */
    private final ThreadLocal<String> lastUser = new ThreadLocal<>();

    public BasicAuthGuard(LiveWebConfig live, boolean tokenOnApi) {
        this(live, tokenOnApi, new FairTurns(MAX_BCRYPT, WAITING_PER_USER, MAX_WAITING), MAX_WAIT);
    }

    BasicAuthGuard(LiveWebConfig live, boolean tokenOnApi, FairTurns turns, java.time.Duration maxWait) {
        this.turns = turns;
        this.maxWaitNanos = maxWait.toNanos();
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
        AuthFailureReason reason;
        try {
            reason = check(wc.users(), ctx.header("Authorization"));
        } catch (Busy b) {
            busyRejections.incrementAndGet();
            logBusy(ctx);
            ctx.header("Retry-After", "1");
            ctx.status(429).contentType("text/plain; charset=utf-8")
                    .result("Too Many Requests: too many password checks for this user; try again\n");
            ctx.skipRemainingHandlers();
            return;
        }
        if (reason == null) {
            return;
        }
        failures.get(reason).incrementAndGet();
        logFailure(ctx, reason);
        ctx.header("WWW-Authenticate", "Basic realm=\"tailwatch\", charset=\"UTF-8\"");
        ctx.status(401).contentType("text/plain; charset=utf-8").result("Unauthorized\n");
        ctx.skipRemainingHandlers();
    }

    /**
     * Null when the credentials are good; else the failure reason. Throws {@link Busy} when a bcrypt is
     * needed and the user's turn did not come (its queue, or every queue, full; or its wait ran out).
     */
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
        // A configured user name may hold ':' (as node_exporter's web config allows): the split is at the
        // first ':' that ends a configured name, else at the first one.
        for (int c = colon; c >= 0; c = decoded.indexOf(':', c + 1)) {
            if (users.containsKey(decoded.substring(0, c))) {
                colon = c;
                break;
            }
        }
        String user = decoded.substring(0, colon);
        byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        lastUser.set(user);
        String hash = users.get(user);
        if (hash == null) {
            bcrypt(UNKNOWN, () -> decoy(users), password);
            return AuthFailureReason.UNKNOWN_USER;
        }
        byte[] mac = mac(hash, password);
        byte[] known = verified.get(user);
        if (known != null && MessageDigest.isEqual(known, mac)) {
            return null;
        }
        if (bcrypt(user, () -> hash, password)) {
            if (verified.size() < WebConfig.MAX_USERS || verified.containsKey(user)) {
                verified.put(user, mac);
            }
            return null;
        }
        return AuthFailureReason.WRONG_PASSWORD;
    }

    /**
     * A bcrypt check in {@code key}'s turn ({@code hash} is asked for in it: making a decoy costs as much).
     */
    private boolean bcrypt(Object key, java.util.function.Supplier<String> hash, byte[] password) {
        FairTurns.Turn turn = turns.enter(key);
        if (turn == null
                || (!turns.granted(turn) && !turns.await(turn, maxWaitNanos, java.util.concurrent.TimeUnit.NANOSECONDS))) {
            throw new Busy();
        }
        try {
            bcryptRuns.incrementAndGet();
            String h = hash.get();
            bcryptWork.addAndGet(1L << cost(h));
            return OpenBSDBCrypt.checkPassword(h, password);
        } catch (RuntimeException e) {
            return false;
        } finally {
            turns.leave(turn);
        }
    }

    /** The decoy an unknown user is checked against: a hash at the highest cost of {@code users}. */
    static String decoy(Map<String, String> users) {
        int cost = 10;
        if (!users.isEmpty()) {
            cost = 4;
            for (String h : users.values()) {
                cost = Math.max(cost, cost(h));
            }
        }
        return DECOYS.computeIfAbsent(cost, c -> {
            byte[] salt = new byte[16];
            RANDOM.nextBytes(salt);
            byte[] pw = new byte[16];
            RANDOM.nextBytes(pw);
            return OpenBSDBCrypt.generate("2y", pw, salt, c);
        });
    }

    /** The cost of a bcrypt hash ({@code $2y$12$...}); 10 when it cannot be read. */
    static int cost(String hash) {
        try {
            return Integer.parseInt(hash.substring(4, 6));
        } catch (RuntimeException e) {
            return 10;
        }
    }

    /**
     * At most one log line a second: the lines held back since the last one written when this one may be
     * written, else -1 (and it is counted as held back).
     */
    private long mayLog() {
        long now = System.currentTimeMillis();
        long last = lastLog.get();
        if (now - last < 1000 || !lastLog.compareAndSet(last, now)) {
            suppressed.incrementAndGet();
            return -1;
        }
        return suppressed.getAndSet(0);
    }

    private void logBusy(Context ctx) {
        long more = mayLog();
        if (more < 0) {
            return;
        }
        String user = lastUser.get();
        LOG.warn("basic auth: no password check free in time{}, request from {} answered 429{}",
                user == null ? "" : " for user " + escape(user), ctx.ip(), more == 0 ? "" : " (" + more + " more not logged)");
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
        long more = mayLog();
        if (more < 0) {
            return;
        }
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

    /** Users whose password is cached now. */
    int verifiedUsers() {
        return verified.size();
    }

    public long failures(AuthFailureReason reason) {
        return failures.get(reason).get();
    }
}
