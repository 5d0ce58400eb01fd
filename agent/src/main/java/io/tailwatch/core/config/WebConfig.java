package io.tailwatch.core.config;

import io.tailwatch.core.tls.Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * The web configuration file of Prometheus' exporter-toolkit (node_exporter's --web.config.file), read
 * the same way: {@code tls_server_config}, {@code http_server_config} and {@code basic_auth_users} with
 * bcrypt hashes. Relative file names are resolved against the file's own directory, as exporter-toolkit
 * does. Loading also reads the certificate, key and client CAs, so a file that names a missing or
 * unreadable certificate is refused when it is loaded, not at the first handshake.
 */
public record WebConfig(Path file, Tls tls, Map<String, String> users, Map<String, String> headers) {
    /** exporter-toolkit's client_auth_type values (Go's tls.ClientAuthType names). */
    public static final List<String> CLIENT_AUTH_TYPES = List.of("NoClientCert", "RequestClientCert",
            "RequireAnyClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert");
    /** The only headers exporter-toolkit lets the file set. */
    public static final List<String> HEADERS = List.of("Content-Security-Policy", "X-Frame-Options",
            "X-Content-Type-Options", "X-XSS-Protection", "Strict-Transport-Security");
    private static final Map<String, String> VERSIONS = Map.of("TLS10", "TLSv1", "TLS11", "TLSv1.1",
            "TLS12", "TLSv1.2", "TLS13", "TLSv1.3");
    private static final List<String> VERSION_ORDER = List.of("TLS10", "TLS11", "TLS12", "TLS13");
    /** OpenBSD bcrypt: $2a$, $2b$ or $2y$, a two-digit cost, 22 characters of salt and 31 of hash. */
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$(\\d\\d)\\$[./A-Za-z0-9]{53}");
    /** Bounds: a web config is a small hand-written file. */
    static final int MAX_FILE_BYTES = 1 << 20;
    public static final int MAX_USERS = 1000;

    /** The TLS part; null in {@link WebConfig#tls()} when the listener serves plain HTTP. */
    public record Tls(Path certFile, Path keyFile, Path clientCaFile, String clientAuthType,
                      List<String> protocols, List<String> cipherSuites, boolean preferServerCipherSuites,
                      List<String> clientAllowedSans, X509Certificate[] chain, PrivateKey key,
                      List<X509Certificate> clientCas) {
        public boolean clientCertRequired() {
            return clientAuthType.equals("RequireAnyClientCert") || clientAuthType.equals("RequireAndVerifyClientCert");
        }

        public boolean clientCertRequested() {
            return !clientAuthType.equals("NoClientCert");
        }

        /** Whether a presented client certificate is checked against client_ca_file. */
        public boolean verifiesClientCert() {
            return clientAuthType.equals("VerifyClientCertIfGiven") || clientAuthType.equals("RequireAndVerifyClientCert");
        }

        /** Files whose change must trigger a reload. */
        List<Path> files() {
            List<Path> out = new ArrayList<>();
            for (Path p : new Path[] {certFile, keyFile, clientCaFile}) {
                if (p != null) {
                    out.add(p);
                }
            }
            return out;
        }
    }

    public boolean basicAuth() {
        return !users.isEmpty();
    }

    /** The web config file and every file it names (for change detection). */
    public List<Path> files() {
        List<Path> out = new ArrayList<>();
        out.add(file);
        if (tls != null) {
            out.addAll(tls.files());
        }
        return out;
    }

    /** Reads and checks the file; every problem names its key (and line). */
    public static WebConfig load(Path file) throws ConfigException {
        Problems problems = new Problems(file.toString());
        String text;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                problems.add(0, 0, "", "file larger than " + MAX_FILE_BYTES + " bytes");
                throw new ConfigException(problems);
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            problems.add(0, 0, "", "cannot read the web config file: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
            throw new ConfigException(problems);
        }
        ConfigNode root = YamlTree.parse(text, problems);
        if (root == null) {
            throw new ConfigException(problems);
        }
        Path dir = file.toAbsolutePath().getParent();
        Section s = new Section(root, "", problems, Map.of());
        Tls tls = readTls(s.section("tls_server_config"), dir);
        Map<String, String> headers = readHttp(s.section("http_server_config"));
        Map<String, String> users = readUsers(s.section("basic_auth_users"));
        for (String unsupported : List.of("rate_limit")) {
            if (s.has(unsupported)) {
                s.problem(unsupported, "not supported by tailwatch (remove it, or put a reverse proxy in front)");
            }
        }
        s.section("rate_limit");
        s.finish();
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new WebConfig(file, tls, users, headers);
    }

    private static Tls readTls(Section s, Path dir) {
        boolean any = !s.keys().isEmpty();
        String certFile = s.string("cert_file", null);
        String keyFile = s.string("key_file", null);
        String certInline = s.string("cert", null);
        String keyInline = s.string("key", null);
        String caFile = s.string("client_ca_file", null);
        String caInline = s.string("client_ca", null);
        String clientAuth = s.string("client_auth_type", "NoClientCert");
        String min = s.string("min_version", "TLS12");
        String max = s.string("max_version", "TLS13");
        List<String> ciphers = s.strings("cipher_suites", List.of());
        boolean prefer = s.bool("prefer_server_cipher_suites", true);
        List<String> sans = s.strings("client_allowed_sans", List.of());
        if (s.has("curve_preferences")) {
            s.problem("curve_preferences", "not supported by tailwatch (Java 17 offers no per-listener curve list); remove it");
            s.strings("curve_preferences", List.of());
        }
        if (!any) {
            s.finish();
            return null;
        }
        boolean ok = true;
        // An empty file name would resolve to this file's directory ("Is a directory"): say what is wrong.
        String[][] files = {{"cert_file", certFile}, {"key_file", keyFile}, {"client_ca_file", caFile}};
        for (String[] f : files) {
            if (f[1] != null && f[1].isBlank()) {
                s.problem(f[0], "is empty; name the PEM file (a path relative to this web config's directory)");
                ok = false;
            }
        }
        if (!ok) {
            s.finish();
            return null;
        }
        if (certFile != null && certInline != null) {
            s.problem("cert", "set cert or cert_file, not both");
            ok = false;
        }
        if (keyFile != null && keyInline != null) {
            s.problem("key", "set key or key_file, not both");
            ok = false;
        }
        if (caFile != null && caInline != null) {
            s.problem("client_ca", "set client_ca or client_ca_file, not both");
            ok = false;
        }
        boolean hasCert = certFile != null || certInline != null;
        boolean hasKey = keyFile != null || keyInline != null;
        if (!hasCert) {
            s.problem(null, "missing cert_file");
            ok = false;
        }
        if (!hasKey) {
            s.problem(null, "missing key_file");
            ok = false;
        }
        if (!CLIENT_AUTH_TYPES.contains(clientAuth)) {
            s.problem("client_auth_type", "expected one of " + String.join(", ", CLIENT_AUTH_TYPES) + ", got '" + clientAuth + "'");
            ok = false;
        }
        boolean hasCa = caFile != null || caInline != null;
        if (hasCa && "NoClientCert".equals(clientAuth)) {
            s.problem("client_ca_file", "client CAs are set but client_auth_type is NoClientCert: set client_auth_type too");
            ok = false;
        }
        if (!hasCa && ("VerifyClientCertIfGiven".equals(clientAuth) || "RequireAndVerifyClientCert".equals(clientAuth))) {
            s.problem("client_auth_type", clientAuth + " needs client_ca_file, the CAs that sign client certificates");
            ok = false;
        }
        if (!sans.isEmpty() && !("RequireAnyClientCert".equals(clientAuth) || "RequireAndVerifyClientCert".equals(clientAuth))) {
            s.problem("client_allowed_sans", "needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert");
            ok = false;
        }
        List<String> protocols = protocols(s, min, max);
        List<String> suites = cipherSuites(s, ciphers);
        s.finish();
        X509Certificate[] chain = null;
        PrivateKey key = null;
        List<X509Certificate> cas = List.of();
        Path cert = certFile == null ? null : dir.resolve(certFile);
        Path keyPath = keyFile == null ? null : dir.resolve(keyFile);
        Path ca = caFile == null ? null : dir.resolve(caFile);
        if (hasCert && hasKey) {
            try {
                List<X509Certificate> c = cert != null ? Pem.certificates(cert) : Pem.certificates(certInline, "cert");
                chain = c.toArray(new X509Certificate[0]);
            } catch (IOException | RuntimeException e) {
                s.problem(certFile != null ? "cert_file" : "cert", e.getMessage());
                ok = false;
            }
            try {
                key = keyPath != null ? Pem.privateKey(keyPath) : Pem.privateKey(keyInline, "key");
            } catch (IOException | RuntimeException e) {
                s.problem(keyFile != null ? "key_file" : "key", e.getMessage());
                ok = false;
            }
            if (chain != null && key != null) {
                String mismatch = Pem.mismatch(chain[0], key);
                if (mismatch != null) {
                    s.problem(keyFile != null ? "key_file" : "key", mismatch);
                    ok = false;
                }
            }
        }
        if (hasCa) {
            try {
                cas = ca != null ? Pem.certificates(ca) : Pem.certificates(caInline, "client_ca");
            } catch (IOException | RuntimeException e) {
                s.problem(caFile != null ? "client_ca_file" : "client_ca", e.getMessage());
                ok = false;
            }
        }
        if (!ok) {
            return null;
        }
        return new Tls(cert, keyPath, ca, clientAuth, protocols, suites, prefer, sans, chain, key, cas);
    }

    private static List<String> protocols(Section s, String min, String max) {
        boolean ok = true;
        if (!VERSIONS.containsKey(min)) {
            s.problem("min_version", "expected one of " + String.join(", ", VERSION_ORDER) + ", got '" + min + "'");
            ok = false;
        }
        if (!VERSIONS.containsKey(max)) {
            s.problem("max_version", "expected one of " + String.join(", ", VERSION_ORDER) + ", got '" + max + "'");
            ok = false;
        }
        if (!ok) {
            return List.of();
        }
        int lo = VERSION_ORDER.indexOf(min);
        int hi = VERSION_ORDER.indexOf(max);
        if (lo > hi) {
            s.problem("min_version", "min_version " + min + " is above max_version " + max);
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = hi; i >= lo; i--) {
            out.add(VERSIONS.get(VERSION_ORDER.get(i)));
        }
        // The JDK leaves out what jdk.tls.disabledAlgorithms names (TLS 1.0 and 1.1 by default) without a
        // word at start-up; every handshake of such a version would fail, so the config is refused here.
        List<String> served = servedProtocols();
        List<String> lowest = VERSION_ORDER.stream().filter(v -> served.contains(VERSIONS.get(v))).toList();
        String floor = lowest.isEmpty() ? "none" : lowest.get(0);
        if (!served.contains(VERSIONS.get(max))) {
            s.problem("max_version", "max_version " + max + ": this Java serves no TLS version up to " + max
                    + " (disabled by jdk.tls.disabledAlgorithms); the lowest it serves is " + floor);
            return List.of();
        }
        if (!served.contains(VERSIONS.get(min))) {
            s.problem("min_version", "min_version " + min + ": this Java does not serve " + min
                    + " (disabled by jdk.tls.disabledAlgorithms); the lowest it serves is " + floor + ", set min_version: " + floor);
            return List.of();
        }
        return out;
    }

    /** The TLS versions a server socket of this runtime offers: the JDK's defaults, less what its security properties disable. */
    static List<String> servedProtocols() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, null, null);
            javax.net.ssl.SSLEngine engine = ctx.createSSLEngine();
            engine.setUseClientMode(false);
            return List.of(engine.getEnabledProtocols());
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Go cipher suite names are the IANA names Java uses, except the ChaCha20 ones Go also accepts without
     * the _SHA256 suffix. Go's list only governs TLS 1.2 and below: the TLS 1.3 suites stay on.
     */
    private static List<String> cipherSuites(Section s, List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        Set<String> supported;
        try {
            supported = Set.copyOf(Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites()));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i).toUpperCase(Locale.ROOT);
            if (n.endsWith("_CHACHA20_POLY1305")) {
                n = n + "_SHA256";
            }
            if (!supported.contains(n) || n.startsWith("TLS_AES_") || n.startsWith("TLS_CHACHA20_")) {
                s.problem("cipher_suites", "cipher_suites[" + i + "]: '" + names.get(i)
                        + "' is not a TLS 1.2 cipher suite this Java serves (unknown, TLS 1.3 only, or disabled by"
                        + " jdk.tls.disabledAlgorithms)");
            } else {
                out.add(n);
            }
        }
        for (String tls13 : List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")) {
            if (supported.contains(tls13)) {
                out.add(tls13);
            }
        }
        return List.copyOf(out);
    }

    private static Map<String, String> readHttp(Section s) {
        Map<String, String> headers = new LinkedHashMap<>();
        Section h = s.section("headers");
        for (String name : h.keys()) {
            String v = h.string(name, "");
            String canonical = HEADERS.stream().filter(x -> x.equalsIgnoreCase(name)).findFirst().orElse(null);
            if (canonical == null) {
                h.problem(name, "this header can not be set (allowed: " + String.join(", ", HEADERS) + ")");
            } else if (canonical.equals("X-Frame-Options") && !v.isEmpty()
                    && !v.equalsIgnoreCase("deny") && !v.equalsIgnoreCase("sameorigin")) {
                h.problem(name, "expected deny or sameorigin, got '" + v + "'");
            } else if (canonical.equals("X-Content-Type-Options") && !v.isEmpty() && !v.equalsIgnoreCase("nosniff")) {
                h.problem(name, "expected nosniff, got '" + v + "'");
            } else if (v.indexOf('\r') >= 0 || v.indexOf('\n') >= 0) {
                h.problem(name, "a header value cannot hold a line break");
            } else if (!v.isEmpty()) {
                headers.put(canonical, v);
            }
        }
        h.finish();
        // HTTP/2 cannot be turned on or off here: the listener speaks HTTP/1.1 (all a scrape needs).
        s.bool("http2", true);
        s.finish();
        return Map.copyOf(headers);
    }

    private static Map<String, String> readUsers(Section s) {
        Map<String, String> users = new LinkedHashMap<>();
        if (s.keys().size() > MAX_USERS) {
            s.problem(null, "more than " + MAX_USERS + " users");
        }
        for (String user : s.keys()) {
            String hash = s.string(user, "");
            java.util.regex.Matcher m = BCRYPT.matcher(hash);
            if (!m.matches()) {
                // The value is a secret: never echoed.
                s.problem(user, "not a bcrypt hash (expected $2a$, $2b$ or $2y$, a cost and 53 characters; "
                        + "make one with htpasswd -nBC 10 \"\" | tr -d ':\\n')");
            } else {
                int cost = Integer.parseInt(m.group(1));
                if (cost < 4 || cost > 31) {
                    s.problem(user, "bcrypt cost " + cost + " is outside 4..31");
                } else {
                    users.put(user, hash);
                }
            }
        }
        s.finish();
        return Map.copyOf(users);
    }
}
