package io.tailwatch.daemon.proxy;

import io.tailwatch.core.config.ProxyConfig;
import org.eclipse.jetty.server.Request;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Names the lane of a request, the lanes tried in the config's order: a header with its value, the API key
 * (its SHA-256 against the configured hash: the key is never held), a path prefix; a lane by model is
 * decided when the engine's answer names the model; {@code default} for the rest. Immutable: a reconfigure
 * swaps in new lanes.
 */
final class Lanes {
    static final String DEFAULT = ProxyConfig.DEFAULT_LANE;
    static final Lanes NONE = new Lanes(List.of());

    private final List<ProxyConfig.Lane> lanes;
    private final long windowNanos;
    private final boolean byModel;
    private final boolean byKey;

    Lanes(List<ProxyConfig.Lane> lanes) {
        this(lanes, ProxyConfig.DEFAULT_LANE_WINDOW);
    }

    /** The lanes of a proxy's config, with its lane window ({@code lane_window}). */
    Lanes(ProxyConfig config) {
        this(config.lanes(), config.laneWindow());
    }

    private Lanes(List<ProxyConfig.Lane> lanes, java.time.Duration window) {
        this.lanes = List.copyOf(lanes);
        this.windowNanos = window.toNanos();
        this.byModel = lanes.stream().anyMatch(l -> l.model() != null);
        this.byKey = lanes.stream().anyMatch(l -> l.apiKeySha256() != null);
    }

    /** The span of each lane's window, in nanoseconds. */
    long windowNanos() {
        return windowNanos;
    }

    /** The lane the request's own header, key or path names, or null when only the model can tell. */
    String laneOf(Request request) {
        String keyHash = byKey ? keyHash(request) : null;
        String path = request.getHttpURI().getPath();
        for (ProxyConfig.Lane l : lanes) {
            if (l.header() != null && l.headerValue().equals(request.getHeaders().get(l.header()))) {
                return l.name();
            }
            if (keyHash != null && l.apiKeySha256() != null && MessageDigest.isEqual(
                    keyHash.getBytes(StandardCharsets.US_ASCII), l.apiKeySha256().getBytes(StandardCharsets.US_ASCII))) {
                return l.name();
            }
            if (l.pathPrefix() != null && path != null && path.startsWith(l.pathPrefix())) {
                return l.name();
            }
        }
        return byModel ? null : DEFAULT;
    }

    /** The lane of a request that no header, key or path named, from the model the engine answered with. */
    String byModel(String model) {
        if (model != null) {
            for (ProxyConfig.Lane l : lanes) {
                if (model.equals(l.model())) {
                    return l.name();
                }
            }
        }
        return DEFAULT;
    }

    /** The SLO of {@code lane}, or null. */
    ProxyConfig.Slo slo(String lane) {
        for (ProxyConfig.Lane l : lanes) {
            if (l.name().equals(lane)) {
                return l.slo();
            }
        }
        return null;
    }

    /** True for the default lane and every lane the config names. */
    boolean names(String lane) {
        if (DEFAULT.equals(lane)) {
            return true;
        }
        for (ProxyConfig.Lane l : lanes) {
            if (l.name().equals(lane)) {
                return true;
            }
        }
        return false;
    }

    List<ProxyConfig.Lane> all() {
        return lanes;
    }

    private static String keyHash(Request request) {
        String key = null;
        String auth = request.getHeaders().get("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            key = auth.substring(7).strip();
        } else if (request.getHeaders().get("x-api-key") != null) {
            key = request.getHeaders().get("x-api-key").strip();
        }
        if (key == null || key.isEmpty() || key.length() > 4096) {
            return null;
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            return null;
        }
    }
}
