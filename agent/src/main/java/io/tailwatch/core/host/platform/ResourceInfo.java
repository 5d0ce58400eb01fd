package io.tailwatch.core.host.platform;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/** Resource attributes that describe this agent and host, in OpenTelemetry naming. */
public final class ResourceInfo {
    private ResourceInfo() {
    }

    public static String version() {
        try (InputStream in = ResourceInfo.class.getResourceAsStream("/io/tailwatch/version.properties")) {
            if (in == null) {
                return "dev";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }

    /** host.arch per the semantic conventions (amd64, arm64, ...). */
    public static String arch() {
        String a = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (a) {
            case "x86_64", "amd64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> a;
        };
    }

    public static String osType() {
        String n = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (n.startsWith("mac")) {
            return "darwin";
        }
        if (n.startsWith("linux")) {
            return "linux";
        }
        return n.replace(' ', '_');
    }

    /** Host name without a DNS lookup (a slow resolver must not delay start-up). */
    public static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h != null && !h.isBlank()) {
            return h.strip();
        }
        try {
            Path p = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(p)) {
                return Files.readString(p).strip();
            }
            Path etc = Path.of("/etc/hostname");
            if (Files.isReadable(etc)) {
                return Files.readString(etc).strip();
            }
        } catch (IOException e) {
            // fall through
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The base attributes; platform sources may add more (chip, model). */
    public static Map<String, String> detect() {
        return detect(null);
    }

    /**
     * The base attributes, {@code service.instance.id} told apart per agent by {@code agent} (the data
     * directory and the configured listen address): two agents on one host (two users, or a test beside
     * the service) get different ids, and a restart of one keeps its own.
     */
    public static Map<String, String> detect(String agent) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("service.name", "tailwatch");
        m.put("service.version", version());
        String host = hostName();
        m.put("service.instance.id", instanceId(host, machineId() + (agent == null || agent.isEmpty() ? "" : "/" + agent)));
        m.put("host.name", host);
        m.put("host.arch", arch());
        m.put("os.type", osType());
        m.put("os.version", System.getProperty("os.version", "unknown"));
        // macOS: host.cpu.model, host.model, and os.version from kern.osproductversion.
        m.putAll(HostSources.resourceAttributes());
        return m;
    }

    /** The UUID namespace the semantic conventions give for name-based service.instance.id values. */
    static final UUID SEMCONV_NAMESPACE = UUID.fromString("4d63009a-8d0f-11ee-aad7-4c796ed8e320");

    /**
     * A service.instance.id that stays the same across restarts on one host: a name-based UUID (version 5,
     * SHA-1) over the host name and the machine id, so two hosts never share one and a restart keeps it.
     */
    public static String instanceId(String hostName, String machineId) {
        String name = "tailwatch/" + hostName + "/" + (machineId == null ? "" : machineId);
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(toBytes(SEMCONV_NAMESPACE));
            byte[] h = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
            h[6] = (byte) ((h[6] & 0x0f) | 0x50);
            h[8] = (byte) ((h[8] & 0x3f) | 0x80);
            ByteBuffer b = ByteBuffer.wrap(h, 0, 16);
            return new UUID(b.getLong(), b.getLong()).toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }

    private static byte[] toBytes(UUID u) {
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    /** Linux /etc/machine-id (or the D-Bus copy), macOS kern.uuid; null when none is readable. */
    static String machineId() {
        for (String f : new String[] {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
            try {
                Path p = Path.of(f);
                if (Files.isReadable(p) && Files.size(p) < 256) {
                    String id = Files.readString(p).strip();
                    if (!id.isEmpty()) {
                        return id;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // try the next
            }
        }
        return HostSources.machineId();
    }

    /** At most this many attributes are taken from OTEL_RESOURCE_ATTRIBUTES, each at most this long. */
    static final int MAX_ENV_ATTRIBUTES = 64;
    static final int MAX_ENV_VALUE = 255;

    /**
     * The attributes with OTEL_RESOURCE_ATTRIBUTES (comma-separated key=value, values percent-encoded) and
     * OTEL_SERVICE_NAME applied on top, as every OpenTelemetry SDK applies them; used for target_info and OTLP.
     */
    public static Map<String, String> withEnvironment(Map<String, String> base, Map<String, String> env) {
        Map<String, String> m = new LinkedHashMap<>(base);
        String raw = env.get("OTEL_RESOURCE_ATTRIBUTES");
        if (raw != null && !raw.isBlank()) {
            int n = 0;
            for (String pair : raw.split(",")) {
                int eq = pair.indexOf('=');
                if (eq <= 0 || n >= MAX_ENV_ATTRIBUTES) {
                    continue;
                }
                String k = pair.substring(0, eq).strip();
                String v;
                try {
                    v = URLDecoder.decode(pair.substring(eq + 1).strip().replace("+", "%2B"), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    continue;
                }
                if (!k.isEmpty() && v.length() <= MAX_ENV_VALUE) {
                    m.put(k, v);
                    n++;
                }
            }
        }
        String service = env.get("OTEL_SERVICE_NAME");
        if (service != null && !service.isBlank()) {
            m.put("service.name", service.strip());
        }
        return m;
    }
}
