package io.tailwatch.tools.service;

import com.dd.plist.NSArray;
import com.dd.plist.NSDictionary;
import com.dd.plist.NSString;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The launchd property list that runs the agent: started at load, restarted after a crash but not
 * after a clean exit, throttled, low priority, logging under Library/Logs/tailwatch.
 *
 * @param java     the java executable
 * @param jvmFlags flags before -jar (launchd/jvm.options)
 * @param jar      the tailwatch jar
 * @param config   config file, or null for the built-in defaults
 * @param logDir   directory of the stdout and stderr logs
 * @param env      EnvironmentVariables (OTEL_* settings and the like)
 */
public record AgentPlist(Path java, List<String> jvmFlags, Path jar, Path config, Path logDir, Map<String, String> env) {
    public static final String LABEL = "io.tailwatch.agent";
    /** Seconds launchd waits before starting the agent again. */
    public static final int THROTTLE_SECONDS = 10;

    public AgentPlist {
        jvmFlags = List.copyOf(jvmFlags);
        env = new TreeMap<>(env);
    }

    public static Path stdoutLog(Path logDir) {
        return logDir.resolve("tailwatch.out.log");
    }

    public static Path stderrLog(Path logDir) {
        return logDir.resolve("tailwatch.err.log");
    }

    public List<String> programArguments() {
        List<String> args = new ArrayList<>();
        args.add(java.toString());
        args.addAll(jvmFlags);
        args.add("-jar");
        args.add(jar.toString());
        args.add("run");
        if (config != null) {
            args.add("--config");
            args.add(config.toString());
        }
        // The agent writes its own log into the stderr file and caps it (10 MiB, one older copy).
        args.add("--log-file");
        args.add(stderrLog(logDir).toString());
        return args;
    }

    public NSDictionary toDict() {
        NSDictionary d = new NSDictionary();
        d.put("Label", LABEL);
        d.put("ProgramArguments", strings(programArguments()));
        d.put("RunAtLoad", true);
        NSDictionary keepAlive = new NSDictionary();
        keepAlive.put("SuccessfulExit", false);
        d.put("KeepAlive", keepAlive);
        d.put("ThrottleInterval", THROTTLE_SECONDS);
        d.put("ProcessType", "Background");
        d.put("StandardOutPath", stdoutLog(logDir).toString());
        d.put("StandardErrorPath", stderrLog(logDir).toString());
        d.put("EnvironmentVariables", envDict(env));
        return d;
    }

    public String xml() {
        return PlistText.xml(toDict());
    }

    static NSArray strings(List<String> list) {
        NSArray a = new NSArray(list.size());
        for (int i = 0; i < list.size(); i++) {
            a.setValue(i, new NSString(list.get(i)));
        }
        return a;
    }

    static NSDictionary envDict(Map<String, String> env) {
        NSDictionary d = new NSDictionary();
        new TreeMap<>(env).forEach(d::put);
        return d;
    }
}
