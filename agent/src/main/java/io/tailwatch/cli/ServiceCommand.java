package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.kv.KvCacheMath;
import io.tailwatch.core.launchd.Launchctl;
import io.tailwatch.core.launchd.UserId;
import io.tailwatch.core.units.Units;
import io.tailwatch.tools.service.AgentPlist;
import io.tailwatch.tools.service.AgentService;
import io.tailwatch.tools.service.EnginePlist;
import io.tailwatch.tools.service.JvmFlags;
import io.tailwatch.tools.service.ServiceLogs;
import io.tailwatch.tools.service.ServicePaths;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** The agent as a launchd service: install, uninstall, status, logs, and plists for engine servers. */
@Command(name = "service", description = "Run the agent (or an engine server) under launchd.",
        subcommands = {ServiceCommand.Install.class, ServiceCommand.Uninstall.class, ServiceCommand.Status.class,
                ServiceCommand.Logs.class, ServiceCommand.Plist.class})
public final class ServiceCommand {

    /** --system, shared by the subcommands that touch the installed service. */
    static final class Scope {
        @Option(names = "--system", description = "System daemon in /Library/LaunchDaemons (needs root) instead of a "
                + "per-user agent in ~/Library/LaunchAgents.")
        boolean system;

        ServicePaths paths() {
            return ServicePaths.of(system, System.getenv(), UserId.current());
        }

        /** Null when allowed, else why not ({@link ServicePaths#rootProblem}). */
        String rootProblem() {
            return ServicePaths.rootProblem(system, System.getenv(), UserId.current());
        }
    }

    abstract static class Base extends PrintingCommand {
        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }

        @Override
        protected final int run(PrintWriter out, PrintWriter err) {
            try {
                return run();
            } catch (Launchctl.NotFound e) {
                err.println(e.getMessage());
                return TailwatchCommand.EXIT_FAILURE;
            } catch (IOException e) {
                err.println(e.getClass().getSimpleName() + ": " + e.getMessage());
                return TailwatchCommand.EXIT_FAILURE;
            } finally {
                out.flush();
                err.flush();
            }
        }

        abstract int run() throws IOException, Launchctl.NotFound;

        /** The service in {@code scope}, or null after saying why this user cannot manage it. */
        AgentService service(Scope scope) {
            String root = scope.rootProblem();
            if (root != null) {
                err().println(root);
                return null;
            }
            return new AgentService(scope.paths(), new Launchctl(System.getenv()), out(), err());
        }

        /** What {@code action} answers for the service in {@code scope}; exit 1 when this user cannot manage it. */
        int withService(Scope scope, ServiceAction action) throws IOException, Launchctl.NotFound {
            AgentService service = service(scope);
            return service == null ? TailwatchCommand.EXIT_FAILURE : action.run(service);
        }
    }

    /** One launchctl step on the agent's service, answering the command's exit code. */
    interface ServiceAction {
        int run(AgentService service) throws IOException, Launchctl.NotFound;
    }

    /**
     * The agent plist this machine would get: this java, this jar, the given config ({@code loaded}, read from
     * {@code config}); a config that gives an engine a metering proxy adds the proxy's JVM flags.
     */
    static AgentPlist agentPlist(ServicePaths paths, Path config, Config loaded, Map<String, String> env) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        boolean proxied = loaded.engines().stream().anyMatch(e -> e.proxy() != null);
        return new AgentPlist(java, JvmFlags.daemon(proxied), runningJar(), config == null ? null
                : config.toAbsolutePath().normalize(), paths.logDir(), env);
    }

    static Path runningJar() {
        try {
            Path p = Path.of(ServiceCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!p.toString().endsWith(".jar")) {
                throw new IllegalStateException("the service runs the tailwatch jar; start this command from it "
                        + "(bin/tailwatch or java -jar tailwatch.jar), not from " + p);
            }
            return p.toAbsolutePath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, String> parseEnv(List<String> pairs) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String p : pairs) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--env wants KEY=VALUE, got '" + p + "'");
            }
            env.put(p.substring(0, eq), p.substring(eq + 1));
        }
        return env;
    }

    @Command(name = "install", description = "Validate the config, write the agent's plist and bootstrap it "
            + "(launchctl bootstrap gui/UID, or system with --system).")
    static final class Install extends Base {
        @Mixin
        ConfigOptions options;
        @Mixin
        Scope scope;
        @Option(names = "--force", description = "Replace an existing plist that differs.")
        boolean force;
        @Option(names = "--env", paramLabel = "KEY=VALUE", description = "Environment variable for the agent, e.g. "
                + "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 (repeatable).")
        List<String> env = new ArrayList<>();

        @Override
        int run() throws IOException, Launchctl.NotFound {
            Config config = options.loadOrReport();
            if (config == null) {
                err().println("not installed: fix the config first (tailwatch config check FILE)");
                return TailwatchCommand.EXIT_CONFIG;
            }
            AgentService service = service(scope);
            if (service == null) {
                return TailwatchCommand.EXIT_FAILURE;
            }
            Map<String, String> vars;
            AgentPlist plist;
            try {
                vars = parseEnv(env);
                plist = agentPlist(scope.paths(), options.config, config, vars);
            } catch (IllegalArgumentException | IllegalStateException e) {
                err().println(e.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
            return service.install(plist.xml(), !vars.isEmpty(), force);
        }
    }

    @Command(name = "uninstall", description = "launchctl bootout the agent and remove its plist (logs stay).")
    static final class Uninstall extends Base {
        @Mixin
        Scope scope;

        @Override
        int run() throws IOException, Launchctl.NotFound {
            return withService(scope, AgentService::uninstall);
        }
    }

    @Command(name = "status", description = "Is the agent's service installed and loaded (launchctl print)? "
            + "Exit 0 when loaded, 1 when not.")
    static final class Status extends Base {
        @Mixin
        Scope scope;

        @Override
        int run() throws IOException, Launchctl.NotFound {
            return withService(scope, AgentService::status);
        }
    }

    @Command(name = "logs", description = "Show the agent's service logs (Library/Logs/tailwatch).")
    static final class Logs extends Base {
        @Mixin
        Scope scope;
        @Option(names = {"-f", "--follow"}, description = "Keep printing what is appended, until interrupted.")
        boolean follow;
        @Option(names = {"-n", "--lines"}, paramLabel = "N", defaultValue = "50", description = "Lines of each log to show first (default ${DEFAULT-VALUE}).")
        int lines;

        @Override
        int run() throws IOException {
            Path dir = scope.paths().logDir();
            ServiceLogs logs = new ServiceLogs(List.of(AgentPlist.stdoutLog(dir), AgentPlist.stderrLog(dir)), out());
            boolean any = logs.tail(Math.max(0, lines));
            if (follow) {
                logs.follow();
                return TailwatchCommand.EXIT_OK;
            }
            return any ? TailwatchCommand.EXIT_OK : TailwatchCommand.EXIT_FAILURE;
        }
    }

    @Command(name = "plist", description = "Print a launchd plist: the agent's (what install writes), or with "
            + "--engine one that runs that engine's server (KeepAlive, logs, PATH, PYTHONUNBUFFERED, --max-kv-size).")
    static final class Plist extends Base {
        @Mixin
        ConfigOptions options;
        @Mixin
        Scope scope;
        @Option(names = "--engine", paramLabel = "NAME", description = "Engine from the config whose server to run.")
        String engine;
        @Option(names = "--env", paramLabel = "KEY=VALUE", description = "Extra environment variable (repeatable).")
        List<String> env = new ArrayList<>();
        @Option(names = "--label", description = "launchd label (default: the engine's launchd_label, else io.tailwatch.engine.NAME).")
        String label;
        @Option(names = "--program", paramLabel = "PATH", description = "Server executable, absolute (default: /opt/homebrew/bin/ollama or /opt/homebrew/bin/<first process name>).")
        String program;
        @Option(names = "--model", description = "Model the server loads (default: the engine's model).")
        String model;
        @Option(names = "--path", paramLabel = "PATH", description = "PATH for the server (default: " + EnginePlist.DEFAULT_PATH + ").")
        String path = EnginePlist.DEFAULT_PATH;
        @Option(names = "--server-arg", paramLabel = "ARG", description = "Extra server argument, appended (repeatable).")
        List<String> serverArgs = new ArrayList<>();
        @Option(names = "--max-kv-size", paramLabel = "TOKENS", description = "KV cache size in tokens, as is.")
        Long maxKvSize;
        @Option(names = "--layers", description = "Model layers (to compute --max-kv-size).")
        Integer layers;
        @Option(names = "--kv-heads", description = "KV heads (to compute --max-kv-size).")
        Integer kvHeads;
        @Option(names = "--head-dim", description = "Head dimension (to compute --max-kv-size).")
        Integer headDim;
        @Option(names = "--bytes-per-element", defaultValue = "2", description = "KV element size: 2 for fp16/bf16, 1 for 8-bit (default ${DEFAULT-VALUE}).")
        double bytesPerElement;
        @Option(names = "--memory", paramLabel = "SIZE", description = "Host memory, e.g. 192GB (to compute --max-kv-size).")
        String memory;
        @Option(names = "--weights", paramLabel = "SIZE", description = "Model weights in memory, e.g. 8GiB (to compute --max-kv-size).")
        String weights;
        @Option(names = "--os-reserve", paramLabel = "SIZE", defaultValue = "10GiB", description = "Memory kept for the OS (default ${DEFAULT-VALUE}).")
        String osReserve;
        @Option(names = "--runtime", paramLabel = "SIZE", defaultValue = "2GiB", description = "Engine runtime outside weights and cache (default ${DEFAULT-VALUE}).")
        String runtime;
        @Option(names = "--safety", defaultValue = "0.8", description = "Share of the remaining memory the cache may use (default ${DEFAULT-VALUE}).")
        double safety;

        @Override
        int run() {
            Config config = options.loadOrReport();
            if (config == null) {
                return TailwatchCommand.EXIT_CONFIG;
            }
            try {
                Map<String, String> vars = parseEnv(env);
                if (engine == null) {
                    if (anyKvOption() || maxKvSize != null) {
                        throw new IllegalArgumentException("--max-kv-size and the KV options need --engine NAME");
                    }
                    out().print(agentPlist(scope.paths(), options.config, config, vars).xml());
                    return TailwatchCommand.EXIT_OK;
                }
                EngineConfig e = config.engine(engine);
                if (e == null) {
                    throw new IllegalArgumentException("--engine: no engine named '" + engine + "' in " + config.source());
                }
                Long kv = maxKvSize();
                String lbl = label != null ? label : e.launchdLabel() != null ? e.launchdLabel() : EnginePlist.defaultLabel(engine);
                if (e.launchdLabel() == null || !e.launchdLabel().equals(lbl)) {
                    err().println("note: set launchd_label: " + lbl + " on engine '" + engine
                            + "' in the config so `tailwatch engine restart " + engine + "` finds this service");
                }
                List<String> command = EnginePlist.serverCommand(e, program != null ? program : EnginePlist.defaultProgram(e),
                        model != null ? model : e.model(), kv, serverArgs);
                Map<String, String> environment = EnginePlist.environment(e, path);
                environment.putAll(vars);
                out().print(new EnginePlist(lbl, engine, command, scope.paths().logDir(), environment).xml());
                return TailwatchCommand.EXIT_OK;
            } catch (IllegalArgumentException | IllegalStateException ex) {
                err().println(ex.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
        }

        private boolean anyKvOption() {
            return layers != null || kvHeads != null || headDim != null || memory != null || weights != null;
        }

        /** --max-kv-size as given, or computed from the model and host sizes, or null. */
        private Long maxKvSize() {
            if (!anyKvOption()) {
                return maxKvSize;
            }
            if (maxKvSize != null) {
                throw new IllegalArgumentException("give --max-kv-size or the options to compute it "
                        + "(--layers --kv-heads --head-dim --memory --weights), not both");
            }
            List<String> missing = new ArrayList<>();
            if (layers == null) {
                missing.add("--layers");
            }
            if (kvHeads == null) {
                missing.add("--kv-heads");
            }
            if (headDim == null) {
                missing.add("--head-dim");
            }
            if (memory == null) {
                missing.add("--memory");
            }
            if (weights == null) {
                missing.add("--weights");
            }
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("to compute --max-kv-size also give " + String.join(" ", missing));
            }
            long perToken = KvCacheMath.bytesPerToken(layers, kvHeads, headDim, bytesPerElement);
            long tokens = KvCacheMath.safeMaxTokens(size("--memory", memory), size("--weights", weights),
                    size("--os-reserve", osReserve), size("--runtime", runtime), safety, perToken);
            if (tokens <= 0) {
                throw new IllegalArgumentException("no memory left for the KV cache: " + memory + " - OS " + osReserve
                        + " - weights " + weights + " - runtime " + runtime + " leaves nothing");
            }
            err().println("max-kv-size " + tokens + " tokens: (" + memory + " - OS " + osReserve + " - weights "
                    + weights + " - runtime " + runtime + ") x " + safety + " / " + perToken + " bytes per token");
            return tokens;
        }

        private static long size(String option, String text) {
            try {
                return Units.bytes(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": " + e.getMessage());
            }
        }
    }
}
