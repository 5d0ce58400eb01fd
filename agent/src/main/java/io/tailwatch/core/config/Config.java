package io.tailwatch.core.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The whole agent configuration. Parsing is strict: unknown keys, wrong types, bad units and
 * out-of-range values are all reported together, each with line, column and key path.
 * Without a file, the built-in defaults are exactly config/tailwatch.yaml (shipped in the jar).
 */
public record Config(String source, ServerConfig server, HostConfig host, OtlpConfig otlp, List<EngineConfig> engines,
                     RulesConfig rules, AlertsConfig alerts, DiscoveryConfig discovery) {

    public static final String DEFAULT_RESOURCE = "/io/tailwatch/config/tailwatch.yaml";

    /** Parses config text; {@code env} supplies ${VAR} substitutions. */
    public static Config parse(String text, String source, Map<String, String> env) throws ConfigException {
        Problems problems = new Problems(source);
        ConfigNode root = YamlTree.parse(text, problems);
        if (root == null) {
            throw new ConfigException(problems);
        }
        Section s = new Section(root, "", problems, env);
        ServerConfig server = ServerConfig.read(s.section("server"));
        HostConfig host = HostConfig.read(s.section("host"));
        OtlpConfig otlp = OtlpConfig.read(s.section("otlp"));
        // Rules and alerts first: they say how many probes each scenario's window must hold.
        RulesConfig rules = RulesConfig.read(s.section("rules"));
        AlertsConfig alerts = AlertsConfig.read(s.section("alerts"));
        boolean auto = EngineConfig.isAuto(s);
        List<EngineConfig> engines = auto ? List.of() : EngineConfig.readAll(s, WindowRequirements.of(rules, alerts),
                ProxyConfig.exposedProblem(server));
        agentItself(s, server, engines);
        DiscoveryConfig discovery = DiscoveryConfig.read(s.section("discovery"), auto);
        s.finish();
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new Config(source, server, host, otlp, engines, rules, alerts, discovery);
    }

    /**
     * An engine URL or a proxy listen address that is the agent's own listener, however either is spelt
     * (compared by resolved address and port; a listener on every address takes every loopback spelling of
     * its port): the agent would probe or forward to itself.
     */
    private static void agentItself(Section s, ServerConfig server, List<EngineConfig> engines) {
        String agent = EngineConfig.endpoint(server.host(), server.port());
        String h = server.host().replace("[", "").replace("]", "");
        boolean everyAddress = h.equals("0.0.0.0") || h.equals("::");
        for (int i = 0; i < engines.size(); i++) {
            EngineConfig e = engines.get(i);
            if (e.proxy() != null && e.proxy().port() != 0 && (EngineConfig.endpoint(e.proxy().host(), e.proxy().port())
                    .equals(agent) || everyAddress && e.proxy().port() == server.port())) {
                s.problem("engines", "engines[" + i + "].proxy.listen " + e.proxy().listen()
                        + " is the agent's own server.listen (" + server.listen() + ")");
            }
            String url = EngineConfig.endpoint(e.url());
            boolean local = url.startsWith("127.") || url.startsWith("0:0:0:0:0:0:0:1 ");
            if (url.equals(agent) || everyAddress && local && url.endsWith(" " + server.port())) {
                s.problem("engines", "engines[" + i + "].url " + e.url() + " is the agent's own server.listen ("
                        + server.listen() + "): the agent would probe itself; give the engine's own address");
            }
        }
    }

    public static Config load(Path file, Map<String, String> env) throws ConfigException, IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), env);
    }

    /** The documented defaults, read from the copy of config/tailwatch.yaml inside the jar. */
    public static Config defaults(Map<String, String> env) throws ConfigException {
        return parse(defaultText(), "built-in defaults (config/tailwatch.yaml)", env);
    }

    public static String defaultText() {
        try (InputStream in = Config.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("default config missing from the jar: " + DEFAULT_RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code engines: auto}: the engines are found on this host's loopback ports (see {@link DiscoveryConfig}). */
    public boolean autoEngines() {
        return discovery != null && discovery.auto();
    }

    public EngineConfig engine(String name) {
        for (EngineConfig e : engines) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return null;
    }

    public Config withWebConfigFile(Path file) {
        return new Config(source, server.withWebConfigFile(file), this.host, otlp, engines, rules, alerts, discovery);
    }

    public Config withListen(String host, int port) {
        return new Config(source, new ServerConfig(host, port, server.authToken(), server.webConfigFile(),
                server.allowedHosts()), this.host, otlp, engines, rules, alerts, discovery);
    }
}
