package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import io.tailwatch.core.config.HostPort;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.daemon.ReloadingDaemon;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.metrics.OtlpExporter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the daemon in the foreground until SIGTERM or SIGINT. SIGHUP reloads the config the way
 * Prometheus does ({@link ReloadingDaemon}).
 */
@Command(name = "run", description = "Run the agent in the foreground (SIGHUP reloads the config).")
public final class RunCommand extends PrintingCommand {

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

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
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
        String memory = io.tailwatch.daemon.MemoryBudget.refusal(config, io.tailwatch.daemon.MemoryBudget.runningHeap(config));
        if (memory != null) {
            err.println((options.config == null ? "config" : options.config.toString()) + ": " + memory);
            return TailwatchCommand.EXIT_CONFIG;
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
        // SIGHUP is caught before the daemon starts: one that came while it was starting (its listener may
        // already answer) would otherwise end the JVM. It reloads once the daemon is up.
        Sighup sighup = Sighup.install();
        ReloadingDaemon daemon;
        try {
            daemon = ReloadingDaemon.start(config, this::nextConfig,
                    options.config == null ? "the built-in defaults" : options.config.toString(), System.getenv(),
                    () -> Runtime.getRuntime().halt(TailwatchCommand.EXIT_FAILURE));
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
            daemon.close();
            guard.flushSuppressed();
            stopped.countDown();
        }, "tailwatch-shutdown"));
        sighup.deliverTo(daemon);
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

    /**
     * SIGHUP would otherwise end the JVM with exit 129 and no word in the log. Installed before the daemon
     * starts; signals that come before {@link #deliverTo} are held and reload once, when the daemon's
     * reload is handed over. Each reload runs on a thread of its own, off the signal dispatcher.
     */
    static final class Sighup {
        private final java.util.concurrent.atomic.AtomicReference<Runnable> reload =
                new java.util.concurrent.atomic.AtomicReference<>();
        private final java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();

        static Sighup install() {
            Sighup s = new Sighup();
            try {
                sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> s.received());
            } catch (IllegalArgumentException e) {
                // The JVM refuses a handler for a signal its parent ignores (nohup), as for one the platform lacks.
                LOG.warn("SIGHUP cannot be caught here (ignored by the parent process, as under nohup, or absent on "
                        + "this platform): the config is reloaded only by restarting the agent");
            }
            return s;
        }

        /** A SIGHUP: reloads now, or once {@link #deliverTo} hands the reload over. */
        void received() {
            Runnable r = reload.get();
            if (r == null) {
                held.set(true);
                r = reload.get(); // handed over in between: deliverTo may have looked at the flag before it was set
                if (r == null || !held.getAndSet(false)) {
                    return;
                }
            }
            start(r);
        }

        void deliverTo(ReloadingDaemon daemon) {
            deliverTo((Runnable) daemon::reload);
        }

        void deliverTo(Runnable r) {
            reload.set(r);
            if (held.getAndSet(false)) {
                start(r);
            }
        }

        private static void start(Runnable r) {
            Thread t = new Thread(r, "tailwatch-reload");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The config a reload reads: the same file (or the defaults) with this command's --listen and --web-config-file. */
    private Config nextConfig() throws ConfigException, IOException, ReloadingDaemon.Refused {
        Config next = options.config == null ? Config.defaults(System.getenv())
                : Config.load(options.config, System.getenv());
        if (listen != null) {
            next = withListen(next);
        }
        if (webConfigFile != null) {
            String problem = io.tailwatch.core.config.ServerConfig.checkWebConfig(webConfigFile);
            if (problem != null) {
                throw new ReloadingDaemon.Refused("--web-config-file: " + problem);
            }
            next = next.withWebConfigFile(webConfigFile);
        }
        return next;
    }
}
