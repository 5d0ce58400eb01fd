package io.tailwatch.tools.service;

import com.dd.plist.NSDictionary;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.EngineApi;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A launchd property list that runs an engine server itself (mlx_lm.server, ollama serve, ...):
 * started at load, restarted after a crash but not after a clean exit, logs under
 * Library/Logs/tailwatch, PATH and PYTHONUNBUFFERED set so Python servers log promptly.
 */
public record EnginePlist(String label, String engine, List<String> programArguments, Path logDir,
                          Map<String, String> env) {
    public static final String DEFAULT_PATH = "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

    public EnginePlist {
        programArguments = List.copyOf(programArguments);
        env = new LinkedHashMap<>(env);
    }

    /** The label used when the engine's config names none. */
    public static String defaultLabel(String engine) {
        return "io.tailwatch.engine." + engine;
    }

    /**
     * The server command for an engine: ollama engines run {@code ollama serve} (address in
     * OLLAMA_HOST); OpenAI-compatible ones run an mlx_lm.server-style command with --model,
     * --host, --port and --max-kv-size.
     *
     * @param program    the server executable (absolute: launchd does not search PATH)
     * @param model      model to load, or null
     * @param maxKvSize  KV cache size in tokens, or null
     * @param extraArgs  appended as given
     */
    public static List<String> serverCommand(EngineConfig e, String program, String model, Long maxKvSize,
                                             List<String> extraArgs) {
        List<String> args = new ArrayList<>();
        args.add(program);
        if (EngineApi.OLLAMA.wireName().equals(e.api())) {
            if (maxKvSize != null) {
                throw new IllegalArgumentException("--max-kv-size applies to OpenAI-compatible servers such as "
                        + "mlx_lm.server; engine '" + e.name() + "' is api: ollama");
            }
            args.add("serve");
        } else {
            if (model != null) {
                args.add("--model");
                args.add(model);
            }
            args.add("--host");
            args.add(e.url().getHost());
            args.add("--port");
            args.add(Integer.toString(e.port()));
            if (maxKvSize != null) {
                args.add("--max-kv-size");
                args.add(Long.toString(maxKvSize));
            }
        }
        args.addAll(extraArgs);
        return args;
    }

    /** The program used when none is given: Homebrew's ollama, or the engine's first process name. */
    public static String defaultProgram(EngineConfig e) {
        if (EngineApi.OLLAMA.wireName().equals(e.api())) {
            return "/opt/homebrew/bin/ollama";
        }
        String first = e.processNames().isEmpty() ? "mlx_lm.server" : e.processNames().get(0);
        return "/opt/homebrew/bin/" + first;
    }

    /** PATH and PYTHONUNBUFFERED always; OLLAMA_HOST for ollama engines. */
    public static Map<String, String> environment(EngineConfig e, String path) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", path);
        env.put("PYTHONUNBUFFERED", "1");
        if (EngineApi.OLLAMA.wireName().equals(e.api())) {
            env.put("OLLAMA_HOST", e.url().getHost() + ":" + e.port());
        }
        return env;
    }

    public Path stdoutLog() {
        return logDir.resolve(engine + ".out.log");
    }

    public Path stderrLog() {
        return logDir.resolve(engine + ".err.log");
    }

    public NSDictionary toDict() {
        NSDictionary d = new NSDictionary();
        d.put("Label", label);
        d.put("ProgramArguments", AgentPlist.strings(programArguments));
        d.put("RunAtLoad", true);
        NSDictionary keepAlive = new NSDictionary();
        keepAlive.put("SuccessfulExit", false);
        d.put("KeepAlive", keepAlive);
        d.put("ThrottleInterval", AgentPlist.THROTTLE_SECONDS);
        d.put("StandardOutPath", stdoutLog().toString());
        d.put("StandardErrorPath", stderrLog().toString());
        d.put("EnvironmentVariables", AgentPlist.envDict(env));
        return d;
    }

    public String xml() {
        return PlistText.xml(toDict());
    }
}
