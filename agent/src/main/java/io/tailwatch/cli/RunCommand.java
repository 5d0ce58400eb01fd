package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import io.tailwatch.core.config.HostPort;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.metrics.OtlpExporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs the daemon in the foreground until SIGTERM or SIGINT. SIGHUP reloads the config the way
 * Prometheus does: the file is read and validated first; on any problem the running config stays and
 * the log says why; a valid config replaces the running daemon (and if the new one cannot start, the
 * previous config is started again).
 */
@Command(name = "run", description = "Run the agent in the foreground (SIGHUP reloads the config).")
public final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    @Mixin
    ConfigOptions options;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Override server.listen.")
    String listen;

    @Option(names = "--web-config-file", paramLabel = "FILE",
            description = "Web config file as Prometheus exporters read it (TLS, basic auth, headers); overrides server.web_config_file.")
    java.nio.file.Path webConfigFile;

    @Option(names = "--log-file", paramLabel = "FILE", description = "Write the log to FILE (capped, see "
            + "--log-max-size) instead of stderr.")
    java.nio.file.Path logFile;

    @Option(names = "--log-max-size", paramLabel = "SIZE", defaultValue = "10MiB", description = "Cap of the "
            + "--log-file: past it the file is copied to FILE.1 and emptied (default: ${DEFAULT-VALUE}).")
    String logMaxSize;

    private final Object lock = new Object();
    private Daemon daemon;
    private Config running;
    private boolean stopping;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Config config = options.loadOrReport();
        if (config == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        if (listen != null) {
            try {
                config = withListen(config);
            } catch (IllegalArgumentException e) {
                err.println("--listen: " + e.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
        if (webConfigFile != null) {
            String problem = io.tailwatch.core.config.ServerConfig.checkWebConfig(webConfigFile);
            if (problem != null) {
                err.println("--web-config-file: " + problem.replace("; ", "\n--web-config-file: "));
                return TailwatchCommand.EXIT_CONFIG;
            }
            config = config.withWebConfigFile(webConfigFile);
        }
        LogGuard guard;
        try {
            if (logFile == null) {
                guard = LogGuard.install();
            } else {
                long max = io.tailwatch.core.units.Units.bytes(logMaxSize);
                if (max < 64 * 1024) {
                    err.println("--log-max-size: at least 64KiB, got " + logMaxSize);
                    return TailwatchCommand.EXIT_CONFIG;
                }
                guard = LogGuard.install(logFile, max);
            }
        } catch (IOException | IllegalArgumentException e) {
            err.println("--log-file / --log-max-size: " + e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        try {
            daemon = new Daemon(config, System.getenv()).start();
            running = config;
        } catch (ApiServer.BindFailure e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        } catch (OtlpExporter.BadSettings e) {
            err.println("otlp: " + e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        } catch (Daemon.WebConfigFailure e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (lock) {
                stopping = true;
                daemon.close();
            }
            guard.flushSuppressed();
            stopped.countDown();
        }, "tailwatch-shutdown"));
        onSighup();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return TailwatchCommand.EXIT_OK;
    }

    private Config withListen(Config config) {
        HostPort hp = HostPort.parse(listen);
        return config.withListen(hp.host(), hp.port());
    }

    /** SIGHUP would otherwise end the JVM with exit 129 and no word in the log. */
    private void onSighup() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> {
                Thread t = new Thread(this::reload, "tailwatch-reload");
                t.setDaemon(true);
                t.start();
            });
        } catch (IllegalArgumentException e) {
            LOG.info("SIGHUP is not available on this platform; reload by restarting the agent");
        }
    }

    void reload() {
        synchronized (lock) {
            if (stopping) {
                return;
            }
            String source = options.config == null ? "the built-in defaults" : options.config.toString();
            LOG.info("SIGHUP: reloading the config from {}", source);
            Config next;
            try {
                next = options.config == null ? Config.defaults(System.getenv())
                        : Config.load(options.config, System.getenv());
                if (listen != null) {
                    next = withListen(next);
                }
                if (webConfigFile != null) {
                    String problem = io.tailwatch.core.config.ServerConfig.checkWebConfig(webConfigFile);
                    if (problem != null) {
                        LOG.warn("config reload failed, keeping the running config: --web-config-file: {}", problem);
                        return;
                    }
                    next = next.withWebConfigFile(webConfigFile);
                }
            } catch (ConfigException e) {
                for (String line : e.problems().render().split("\n")) {
                    LOG.warn("config reload failed, keeping the running config: {}", line);
                }
                return;
            } catch (IOException | RuntimeException e) {
                LOG.warn("config reload failed, keeping the running config: cannot read {}: {}", source, e.toString());
                return;
            }
            String otlp = OtlpExporter.check(next.otlp().settings(), System.getenv());
            if (otlp != null) {
                LOG.warn("config reload failed, keeping the running config: otlp: {}", otlp);
                return;
            }
            Config previous = running;
            daemon.close();
            try {
                daemon = new Daemon(next, System.getenv()).start();
                running = next;
                LOG.info("config reloaded from {}", source);
            } catch (RuntimeException e) {
                LOG.error("the reloaded config cannot start ({}); starting the previous config again", e.getMessage());
                try {
                    daemon = new Daemon(previous, System.getenv()).start();
                } catch (RuntimeException again) {
                    LOG.error("the previous config cannot start either ({}); exiting", again.getMessage());
                    stopping = true;
                    Runtime.getRuntime().halt(TailwatchCommand.EXIT_FAILURE);
                }
            }
        }
    }
}
